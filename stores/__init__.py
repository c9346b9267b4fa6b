"""deepread package."""
