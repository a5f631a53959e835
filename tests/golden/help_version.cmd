$LLAMP --version && $LLAMP analyze --help | head -3
