"""At the replica's cap of gRPC requests arriving (``grpc_arrivals.Arrivals``), the /64s of an
IPv6 site count together when one must give way: 2,048 /64s of one /48, each holding one call
that never finished arriving, held every place, and no /64 held more than a newcomer, so every
other client's calls were refused TOO_MANY_CALLS. Now the site holding the most gives way (its
/64 holding the most), and sites holding as many do not take turns."""

from __future__ import annotations

import asyncio

import pytest

from conftest import run
from hustings.service.client_limits import client_of
from hustings.service.errors import ServiceError
from hustings.service.grpc_arrivals import Arrivals


def test_the_site_holding_the_most_arriving_gives_way() -> None:
    async def scenario() -> None:
        arrivals = Arrivals(max_arriving=4, max_per_client=4)
        tasks = [asyncio.create_task(asyncio.sleep(60)) for _ in range(8)]
        try:
            site = [(client_of(f"2001:db8:1:{n:x}::1"), tasks[n]) for n in range(4)]
            for client, task in site:
                arrivals.enter(client, task)
            arrivals.enter("192.0.2.1", tasks[4])  # 4 against 0: the site's oldest gives way
            assert [arrivals.gave_way(task) for _, task in site] == [True, False, False, False]
            arrivals.enter("192.0.2.2", tasks[5])  # 3 against 0
            with pytest.raises(ServiceError) as refused:  # a /64 of the site: 2 against 2, no turn
                arrivals.enter(client_of("2001:db8:1:99::1"), tasks[6])
            assert refused.value.reason == "TOO_MANY_CALLS"
            assert arrivals.arriving == 4
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    run(scenario())
