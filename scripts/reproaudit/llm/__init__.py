"""The client for any OpenAI-compatible endpoint, shared by the judge, onboarding and extract.

``settings.py`` reads where the endpoint is; ``endpoint.py`` makes one bounded call
(time, bytes, retries, a circuit breaker), with ``throttle.py`` for 429 and
``replyclock.py`` for a total time per reply; ``halt.py`` is a run's deadline and
cancel switch. Nothing here knows about claims or verdicts: ``judge/`` and
``onboard/`` build their prompts and read their replies on top of it.
"""
