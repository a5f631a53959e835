$LLAMP analyze --no-such-option x.goal
