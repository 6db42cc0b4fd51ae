"""What a replica gets when nothing is said: its gRPC address, the embedded Redis's folder and
how long finished games are kept.

Defined once, here, for ``hustings serve`` and for the library (``ReplicaConfig``,
``start_embedded_redis``) alike; the module imports nothing, so the command line reads it
without loading the service.
"""

import pathlib

DEFAULT_ADDRESS = "127.0.0.1:50051"
# Relative to the directory ``hustings serve`` is started in (resolved once, at start). It holds
# the games (the append-only file) and the server secret: `deploy/Dockerfile`'s .dockerignore
# leaves it out of the image.
DEFAULT_DATA_DIR = pathlib.Path(".hustings-data")
# How long a finished game's keys are kept (``hustings serve --retention-days``, 30 by default).
DEFAULT_RETENTION_S = 30 * 24 * 3600
# How long calls in flight may take to finish once a replica stops, on its gRPC and REST faces
# alike (they stop together).
DEFAULT_GRACE_S = 5.0
# HTTP/2 streams one gRPC connection may have open at once, calls and streams together (its
# MAX_CONCURRENT_STREAMS; ``hustings serve --max-streams-per-connection``). A stream its client
# resets at once, or one refused, still waits in the replica's one event loop until gRPC has
# handed it over and it is looked at (120-300 µs each, charged to no limit): with 1,528 a
# connection, one connection resetting 10,000 streams a second held every other client's calls
# 240-520 ms; with 128, 10 ms (96: 6-8 ms; 200: 32 ms; 400: 140 ms). nginx's default is 128 too.
DEFAULT_MAX_STREAMS_PER_CONNECTION = 128
# Of those, the streams a connection's WatchGame, health and reflection streams may not take, so
# that its unary calls always find one (past the cap a stream is refused, REFUSED_STREAM, which a
# gRPC client reports as UNAVAILABLE).
CALL_ROOM_PER_CONNECTION = 32
