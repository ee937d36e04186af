"""Text helpers: words and content words, sentences, language identification,
chat messages to detection inputs, and the MiniLM sentence encoder."""
