$LLAMP analyze /nonexistent/graph.goal
