"""Running a replay on many logs: shards of files, this process, a pool of local processes or a
Ray cluster, and the ingest that stores what they return.
"""
