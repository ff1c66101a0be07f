import DepotCore
import DepotJSON
import DepotScriptSource
import DepotTestSupport
import Testing

@Suite("ScriptSource: a stored stream of collections")
struct ScriptSourceTests {
    static let script = #"""
        {"name": "battle", "description": "hp changes", "repeat": false, "stream": [
          {"value": [{"id": 1, "name": "a", "hp": 10}, {"id": 2, "name": "b", "hp": 20}]},
          {"value": [{"id": 1, "name": "a", "hp": 5}, {"id": 2, "name": "b", "hp": 25}, {"id": 3, "name": "c", "hp": 1}],
           "operators": [{"op": "delay", "seconds": 1.5}, {"op": "filter", "where": {"field": "/hp", "gt": 2}}, {"op": "delay", "seconds": 0.5},
                         {"op": "select", "fields": ["/hp"]}, {"op": "sort", "by": "/hp", "order": "desc"}]}
        ]}
        """#

    func source(_ text: String = script) throws -> ScriptSource {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        return try ScriptSource(path: directory.write("stream.json", text), idField: "id")
    }

    @Test("steps are shaped by their operators and delayed by the sum of their delays; a first step without delay answers at once")
    func steps() async throws {
        let source = try source()
        #expect(source.script.steps.map(\.delay) == [.zero, .seconds(2)])
        #expect(try await source.fetchItems().count == 2)
        #expect(source.nextDelay == .seconds(2))
        #expect(source.advance())
        #expect(try await source.fetchItems() == [["id": 2, "hp": 25], ["id": 1, "hp": 5]])
        #expect(source.nextDelay == nil, "the stream does not repeat: it stays at its last step")
        #expect(!source.advance())
        #expect(try await source.fetchItems().count == 2)
    }

    @Test("a repeating stream starts over; a removal lasts until the next step")
    func repeatsAndRemovals() async throws {
        let source = try source(Self.script.replacing(#""repeat": false"#, with: #""repeat": true"#))
        #expect(try await source.deleteItem(id: "1") == .applied)
        #expect(try await source.fetchItems().map { $0["id"] } == [2])
        await #expect(throws: SourceError.self) { try await source.deleteItem(id: "1") }
        await #expect(throws: SourceError.self) { try await source.deleteItem(id: "9") }
        source.advance()
        #expect(try await source.fetchItems().count == 2, "the next step brings its own items")
        #expect(source.nextDelay == .zero, "after the last step comes the first")
        #expect(source.advance())
        #expect(try await source.fetchItems().map { $0["id"] } == [1, 2])
    }

    @Test("before a delayed first step takes effect, the answer is empty")
    func delayedFirstStep() async throws {
        let source = try source(#"{"name": "x", "stream": [{"value": [{"id": 1}], "operators": [{"op": "delay", "seconds": 3}]}]}"#)
        #expect(try await source.fetchItems() == [])
        #expect(source.nextDelay == .seconds(3))
        #expect(source.advance())
        #expect(try await source.fetchItems() == [["id": 1]])
    }

    @Test(
        "a script that cannot be played is refused at start, saying where",
        arguments: [
            (#"[]"#, "a stream script is an object"),
            (#"{"name": "x", "stream": []}"#, "\"stream\" is required, a non-empty array"),
            (#"{"name": "x", "stream": [{"value": {}}]}"#, "stream step 0: \"value\" is required"),
            (
                #"{"name": "x", "stream": [{"value": [], "operators": [{"op": "throttle", "seconds": 1}]}]}"#,
                "operator 0 (throttle) does not apply to a step"
            ),
            (
                #"{"name": "x", "stream": [{"value": [], "operators": [{"op": "delay"}]}]}"#,
                "stream step 0: operators: operator 0 at /0: delay needs \"seconds\""
            ),
            (#"{"name": "x", "stream": [{"value": [{"name": "no id"}]}]}"#, "stream step 0: value:"),
            (#"{"name": "x", "loop": true, "stream": [{"value": []}]}"#, "unknown member \"loop\""),
            ("not json", "is not JSON"),
        ])
    func refused(text: String, message: String) {
        #expect {
            try source(text)
        } throws: { error in
            "\(error)".contains(message)
        }
    }
}
