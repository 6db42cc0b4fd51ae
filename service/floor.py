"""The benchmark floor: a bare gRPC call that makes one Redis round trip and nothing else.

Registered only when a replica is started with ``--benchmark-floor``; ``hustings loadtest``
compares SubmitMove with it in the same run. Its round trip goes the way a move's commit goes
(``Store.round_trip``: the pipelined lane), so that the comparison is of the rest of the move.
"""

from __future__ import annotations

import grpc

from hustings.service.store import Store

FLOOR_METHOD = "/hustings.bench.Floor/RoundTrip"
FLOOR_KEY = "hustings:bench:floor"


def floor_handler(store: Store) -> grpc.GenericRpcHandler:
    """A handler for FLOOR_METHOD: raw bytes in, one GET, raw bytes out."""

    async def round_trip(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        value = await store.round_trip(FLOOR_KEY)
        return value or b""

    return grpc.method_handlers_generic_handler(
        "hustings.bench.Floor", {"RoundTrip": grpc.unary_unary_rpc_method_handler(round_trip)}
    )
