"""Walk entries to file outcomes: read, extract in worker processes, attachments as children."""
