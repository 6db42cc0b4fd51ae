"""IPv6 sites: the /48 a client's /64 is part of, which the limits by client address also
count (``client_limits``: rates and creations; ``limits``: streams; ``unread``: unread bytes)."""

from __future__ import annotations

import functools
import ipaddress

# An IPv6 site: the /48 that a client's /64 is part of. A /48 is what an organization is routed,
# or anyone through a free tunnel broker: 65,536 /64s, each a client with full allowances of its
# own, so one machine with such a block had 65,536 clients' rates and creations. So the /64s of a
# site together get ``client_limits.DEFAULT_CLIENTS_PER_IPV6_SITE`` clients' worth of each rate
# and burst (``ClientBuckets``'s ``sites``), besides each one's own. Households that an ISP
# numbers from one /48 (a /56 or a /64 each) share it; sixteen of them at their full rates on one
# replica at once would be needed to meet it. The streams a replica holds for a client address
# while they last a site holds no more of than one address: five /64s of one site held every
# stream of a replica when each counted alone. And at the site's cap of streams its /64 holding
# the most gives way to one holding fewer (``limits.StreamLimits.hold``): one /64 at its
# address's cap kept every other /64 of its /48 from streaming. Of what cannot give way at once,
# listed tables waiting (``open_tables``) and stream updates unread (``unread``), a site keeps
# four addresses' worth: at one address's, one /64 at its cap shut out the rest of its /48.
IPV6_SITE_PREFIX = 48
# The addresses' worth a site keeps of what cannot give way at once: listed tables waiting
# (``open_tables``) and stream updates unread (``unread``).
SITE_SHARE = 4


@functools.lru_cache(maxsize=8_192)
def site_of(client: str) -> str | None:
    """The IPv6 site of a client that is an IPv6 /64 network (as ``client_of`` names it): its /48
    (``2001:db8:1::/48``); None for any other client (an IPv4 address, a unix socket's peer)."""
    if not client.endswith("/64"):
        return None
    try:
        network = ipaddress.IPv6Network(client)
    except ValueError:
        return None
    return str(network.supernet(new_prefix=IPV6_SITE_PREFIX))
