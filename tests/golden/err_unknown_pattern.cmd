$LLAMP generate halo4d -o /dev/null
