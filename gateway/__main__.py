"""The gateway process."""


from gateway import payloads
from gateway.bootstrap import build_gateway, token_authority
from gateway.forwarded import caller_address
from gateway.limits import CallerLimits
from gateway.servicer import register
from services.common import config, runtime
from services.common.redis import client as redis_client
from services.common.rpc.server import serve
from services.common.security import keyring
from services.games import registry


async def main() -> None:
    settings = config.load()
    try:
        tokens = token_authority(settings)
    except keyring.KeyRingError as error:
        raise SystemExit(f"tabletop: refusing to start: {error}") from None
    client = redis_client.connect_settings(settings, "tabletop-gateway")
    built = build_gateway(settings, tokens, client)

    async def stop() -> None:
        await built.close()
        await client.aclose()

    await serve(
        "gateway",
        settings,
        lambda server: register(server, built.service),
        on_stop=stop,
        public=True,
        redis=client,
        admission=CallerLimits(settings).admit,
        # Reflection resolves every view, action and event a client receives or sends in an Any.
        reflect=payloads.reflected_names(name for name in built.games if name in registry.available()),
        caller=caller_address(settings.trust_forwarded),
    )


if __name__ == "__main__":
    runtime.run(main)
