$LLAMP frobnicate
