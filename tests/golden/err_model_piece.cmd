$LLAMP model $DATA/models/bad_piece.cfg
