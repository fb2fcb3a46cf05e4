"""Sessions at run time: the book of sessions, recovery, checkpoints, workspace snapshots and transcripts."""
