"""The judge: deterministic rules first, then an LLM for what rules cannot decide."""
