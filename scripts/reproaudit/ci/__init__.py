"""What the GitHub workflows call: PR commands, results, reports; the REST client."""
