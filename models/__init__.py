"""Chat models: a model by name, one call with retries and a deadline, errors in one line.

Used by the agent's nodes, the ingest's model steps (OCR, figure and section
descriptions) and the evaluation's judge, so it sits below all three. It knows LangChain's
chat-model interface and nothing of LangGraph or of documents.
"""
