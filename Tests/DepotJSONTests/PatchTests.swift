import DepotJSON
import Testing

/// What the conformance vectors do not say: member order, errors a user can act on, and a patch applied whole.
@Suite("JSON Patch and Merge Patch: order, errors, atomicity")
struct PatchTests {
    static func parse(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    static func text(_ value: JSONValue) -> String {
        String(decoding: value.jsonBytes, as: UTF8.self)
    }

    @Test("a merge patch replaces members where they stand and adds new ones last")
    func mergeKeepsOrder() throws {
        let item = try Self.parse(#"{"id":"a","name":"old","tags":["x"],"n":1}"#)
        let patched = JSONMergePatch.apply(try Self.parse(#"{"name":"new","extra":true,"n":null}"#), to: item)
        #expect(Self.text(patched) == #"{"id":"a","name":"new","tags":["x"],"extra":true}"#)
    }

    @Test("a merge patch keeps number literals it does not touch")
    func mergeKeepsLiterals() throws {
        let patched = JSONMergePatch.apply(try Self.parse(#"{"b":2}"#), to: try Self.parse(#"{"a":1.50,"big":12345678901234567890123}"#))
        #expect(Self.text(patched) == #"{"a":1.50,"big":12345678901234567890123,"b":2}"#)
    }

    @Test("JSON Patch replaces a member where it stands")
    func jsonPatchKeepsOrder() throws {
        let patch = try JSONPatch(decoding: try Self.parse(#"[{"op":"replace","path":"/name","value":"new"},{"op":"add","path":"/z","value":0}]"#))
        #expect(Self.text(try patch.apply(to: try Self.parse(#"{"id":"a","name":"old","n":1}"#))) == #"{"id":"a","name":"new","n":1,"z":0}"#)
    }

    @Test("a failing operation fails the whole patch and names itself and why")
    func failureNamesTheOperation() throws {
        let patch = try JSONPatch(
            decoding: try Self.parse(#"[{"op":"replace","path":"/n","value":2},{"op":"test","path":"/n","value":1}]"#))
        #expect(throws: JSONPatchError(index: 1, #"test at "/n": the value there is not the one the test expects"#)) {
            try patch.apply(to: try Self.parse(#"{"n":1}"#))
        }
    }

    @Test(
        "a malformed patch is refused when decoded, naming the operation and the member",
        arguments: [
            (#"{"op":"add"}"#, nil as Int?, "a JSON Patch must be an array of operations, not an object"),
            (#"[1]"#, 0, "an operation must be an object, not a number"),
            (#"[{"op":"add","path":"/a"}]"#, 0, #"the operation has no "value""#),
            (
                #"[{"op":"remove","path":"/a"},{"op":"frob","path":"/a"}]"#, 1,
                #""op" must be one of add, remove, replace, move, copy, test, not "frob""#
            ),
            (#"[{"op":"remove","path":"a"}]"#, 0, #""path" is not a JSON Pointer: "a" (write "" or "/member/0")"#),
            (#"[{"op":"copy","path":"/a"}]"#, 0, #"the operation has no "from""#),
        ])
    func malformed(text: String, index: Int?, reason: String) {
        #expect(throws: JSONPatchError(index: index, reason)) { try JSONPatch(decoding: try Self.parse(text)) }
    }

    @Test("an index past the end says how long the array is")
    func outOfBounds() throws {
        let patch = try JSONPatch(decoding: try Self.parse(#"[{"op":"add","path":"/a/3","value":0}]"#))
        #expect(throws: JSONPatchError(index: 0, #"add at "/a/3": index 3 is out of bounds: the array has 2 elements"#)) {
            try patch.apply(to: try Self.parse(#"{"a":[1,2]}"#))
        }
    }

    @Test("a move to where the value is changes nothing, but only when a value is there (found by scripts/fuzz-patch)")
    func moveToItself() throws {
        let same = try JSONPatch(decoding: try Self.parse(#"[{"op":"move","from":"/a","path":"/a"}]"#))
        #expect(Self.text(try same.apply(to: try Self.parse(#"{"a":1,"b":2}"#))) == #"{"a":1,"b":2}"#)
        let fromNothing = try JSONPatch(decoding: try Self.parse(#"[{"op":"move","from":"/-","path":"/-"}]"#))
        #expect(throws: JSONPatchError(index: 0, #"move at "/-": "from" ("/-") names nothing in the document"#)) {
            try fromNothing.apply(to: try Self.parse("[]"))
        }
    }

    @Test("member names are compared code point for code point: é and e + U+0301 are two members")
    func codePoints() throws {
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"
        #expect(JSONPointer(tokens: [composed]) != JSONPointer(tokens: [decomposed]))
        #expect(Set([JSONPointer(tokens: [composed]), JSONPointer(tokens: [decomposed])]).count == 2)
        // A move between them is a move, not a move to itself; a move into the other is not a move into itself.
        let move = try JSONPatch(decoding: try Self.parse(#"[{"op":"move","from":"/\#(composed)","path":"/\#(decomposed)"}]"#))
        #expect(Self.text(try move.apply(to: try Self.parse(#"{"\#(composed)":1}"#))) == #"{"\#(decomposed)":1}"#)
        let into = try JSONPatch(decoding: try Self.parse(#"[{"op":"move","from":"/\#(composed)","path":"/\#(decomposed)/x"}]"#))
        #expect(
            Self.text(try into.apply(to: try Self.parse(#"{"\#(composed)":1,"\#(decomposed)":{}}"#))) == #"{"\#(decomposed)":{"x":1}}"#)
        // A merge patch setting one leaves the other.
        let merged = JSONMergePatch.apply(try Self.parse(#"{"\#(decomposed)":null}"#), to: try Self.parse(#"{"\#(composed)":1,"\#(decomposed)":2}"#))
        #expect(Self.text(merged) == #"{"\#(composed)":1}"#)
    }

    @Test("a patch round-trips through its JSON")
    func roundTrip() throws {
        let text = #"[{"op":"move","from":"/a","path":"/b"},{"op":"test","path":"/b","value":[1]},{"op":"remove","path":"/c~1d"}]"#
        #expect(Self.text(try JSONPatch(decoding: try Self.parse(text)).json) == text)
    }
}
