"""One live connection to a server and how it talks: transports, requests, results, the SDK."""
