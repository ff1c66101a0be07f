"""The HTTP run's API held to what depotd's HTTP source expects of one: a listing with an ETag (304 when unchanged),
an item with its own, PUT, PATCH (merge and JSON Patch) and DELETE of one item with their statuses, If-Match and
If-None-Match: * on a put, its own
changes recorded in the history, and its faults."""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.request
from typing import Any

from depot_robustness.history import History
from depot_robustness.traffic import Keys
from depot_robustness.web import API_CLIENT, ItemAPI


def call(api: ItemAPI, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> int:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"http://127.0.0.1:{api.port}{path}", data=data, method=method)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status: int = response.status
            return status
    except urllib.error.HTTPError as error:
        return error.code


def test_the_api_answers_as_an_http_source_expects() -> None:
    history = History(initial={})
    api = ItemAPI([{"id": 1, "v": "a"}, {"id": "s1", "v": "b"}], history)
    api.start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{api.port}/items", timeout=10) as response:
            etag = response.headers["ETag"]
            assert json.load(response) == [{"id": 1, "v": "a"}, {"id": "s1", "v": "b"}]
        assert call(api, "GET", "/items", headers={"If-None-Match": etag}) == 304
        assert call(api, "PUT", "/items/2", {"id": 2, "v": "c"}) == 201
        assert call(api, "PUT", "/items/2", {"id": 2, "v": "d"}) == 200
        assert call(api, "PUT", "/items/2", {"id": 2, "v": "e"}, {"If-None-Match": "*"}) == 412
        merge = {"Content-Type": "application/merge-patch+json"}
        assert call(api, "PATCH", "/items/s1", {"note": "x"}, merge) == 200
        assert call(api, "PATCH", "/items/zz", {"note": "x"}, merge) == 404
        failing_test = [{"op": "test", "path": "/v", "value": "nope"}]
        assert call(api, "PATCH", "/items/s1", failing_test, {"Content-Type": "application/json-patch+json"}) == 409
        # An item has an ETag of its own; a write with If-Match is made only while the item has it.
        with urllib.request.urlopen(f"http://127.0.0.1:{api.port}/items/2", timeout=10) as response:
            item_tag = response.headers["ETag"]
            assert json.load(response) == {"id": 2, "v": "d"}
        assert call(api, "GET", "/items/zz") == 404
        assert call(api, "PUT", "/items/2", {"id": 2, "v": "f"}, {"If-Match": '"other"'}) == 412
        assert call(api, "DELETE", "/items/zz", headers={"If-Match": item_tag}) == 412
        assert call(api, "PATCH", "/items/2", {"v": "d"}, {**merge, "If-Match": item_tag}) == 200
        assert call(api, "DELETE", "/items/1") == 204
        assert call(api, "DELETE", "/items/1") == 404
        assert api.listing() == [{"id": "s1", "v": "b", "note": "x"}, {"id": 2, "v": "d"}]
        # A change of its own is a write of the history at the instant it was made.
        api.change_by_itself(Keys(single=["s1"], grouped=[]), random.Random(1))
        own = history.operations[-1]
        assert (own.client, own.kind, own.outcome, own.changes[0].key) == (API_CLIENT, "write", "ok", "s1")
        assert own.invoked <= own.returned if own.returned is not None else False
        # Failing: 503, nothing changed.
        api.set_mode("fail")
        assert call(api, "PUT", "/items/3", {"id": 3}) == 503
        api.set_mode("normal")
        assert all(item["id"] != 3 for item in api.listing())
        # Reset: the change is made, the answer lost.
        api.set_mode("reset")
        try:
            call(api, "PUT", "/items/4", {"id": 4})
            raise AssertionError("an answer came")
        except (ConnectionError, urllib.error.URLError, OSError):
            pass
        api.set_mode("normal")
        assert {"id": 4} in api.listing()
    finally:
        api.stop()
