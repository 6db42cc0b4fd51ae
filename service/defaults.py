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
