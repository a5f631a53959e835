$LLAMP model $DATA/models/bad_key.cfg
