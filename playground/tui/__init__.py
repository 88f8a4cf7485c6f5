"""The Textual terminal UI. Importing this package pulls in textual; the engine never does."""
