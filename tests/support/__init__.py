"""What the tests share: scripted models, documents, stores, servers and PDFs made here."""
