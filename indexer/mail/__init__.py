"""Mail archives: mbox files split into messages, Maildir folders, attachments as children."""
