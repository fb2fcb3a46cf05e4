"""Sessions at run time: the book of sessions, recovery, checkpoints, workspace snapshots, transcripts, goal changes and the prompt-cache state a session keeps."""
