"""Human review in Label Studio: tasks out, corrections back, and the client that talks to a server."""
