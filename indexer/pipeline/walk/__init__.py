"""The walker: every path below SOURCE once, in a fixed order, with a verdict; a
mailbox's messages listed after it."""
