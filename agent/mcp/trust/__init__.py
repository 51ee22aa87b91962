"""What the person trusted a local server to run, and each launch judged against it."""
