import DepotJSON
import Testing

@Suite("Parser: values")
struct ParserValueTests {
    @Test(
        "scalars at the top level",
        arguments: [
            ("null", JSONValue.null),
            ("true", .bool(true)),
            ("false", .bool(false)),
            ("0", number("0")),
            ("\"hi\"", .string("hi")),
            ("\"\"", .string("")),
        ])
    func scalars(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(text) == expected)
    }

    @Test func emptyContainers() throws {
        #expect(try JSONParser.parse("[]") == .array([]))
        #expect(try JSONParser.parse("{}") == .object(JSONObject()))
        #expect(try JSONParser.parse("[ ]") == .array([]))
        #expect(try JSONParser.parse("{ \n}") == .object(JSONObject()))
        #expect(try JSONParser.parse("[[],{}]") == [[], [:]])
    }

    @Test func arrayOfEveryType() throws {
        let value = try JSONParser.parse(#"[null,true,false,-1.5e3,"s",[1],{"k":"v"}]"#)
        let expected: JSONValue = [nil, true, false, number("-1.5e3"), "s", [1], ["k": "v"]]
        #expect(value == expected)
    }

    @Test func nestedObjects() throws {
        let value = try JSONParser.parse(#"{"a":{"b":{"c":[1,{"d":null}]}},"e":[]}"#)
        #expect(value["a"]?["b"]?["c"]?.arrayValue?.count == 2)
        #expect(value["a"]?["b"]?["c"]?.arrayValue?[1]["d"] == .null)
        #expect(value["e"] == .array([]))
    }

    @Test func memberOrderIsKept() throws {
        let value = try JSONParser.parse(#"{"zebra":1,"apple":2,"mango":3,"banana":4}"#)
        #expect(value.objectValue?.keys == ["zebra", "apple", "mango", "banana"])
    }

    @Test func duplicateKeysAreAllKeptInOrder() throws {
        let value = try JSONParser.parse(#"{"a":1,"b":2,"a":3}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["a", "b", "a"])
        #expect(object.members.map(\.value) == [1, 2, 3])
        #expect(object["a"] == 3)
    }

    @Test(
        "whitespace around and between tokens",
        arguments: [
            " \t\r\n[ 1 , 2 ]\n",
            "[1,2]",
            "\n\n[\n1\n,\n2\n]\n\n",
            "\t[\t1\t,\r\n2]\t",
        ])
    func whitespace(text: String) throws {
        #expect(try JSONParser.parse(text) == [1, 2])
    }

    @Test func whitespaceInsideObjects() throws {
        let value = try JSONParser.parse(" { \"a\" \t: \r\n 1 ,\n \"b\" : [ true , null ] } ")
        #expect(value == ["a": 1, "b": [true, nil]])
    }

    @Test func byteOrderMarkIsSkipped() throws {
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("{\"a\":1}".utf8)) == ["a": 1])
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF, 0x20] + Array("7".utf8)) == 7)
        #expect(try JSONParser.parse("\u{FEFF}[true]") == [true])
    }

    @Test func byteOrderMarkOnlyAtTheStart() {
        #expect(parseError([0x5B, 0xEF, 0xBB, 0xBF, 0x5D]) == failure(.unexpectedCharacter(0xEF), at: 1))
        #expect(parseError([0x20, 0xEF, 0xBB, 0xBF, 0x31]) == failure(.unexpectedCharacter(0xEF), at: 1))
        #expect(parseError([0xEF, 0xBB, 0xBF]) == failure(.empty, at: 3))
    }

    @Test func allEntryPointsAgree() throws {
        let text = #"{"list":[1,2,3],"name":"Zoë"}"#
        let bytes = Array(text.utf8)
        let fromString = try JSONParser.parse(text)
        let fromArray = try JSONParser.parse(bytes)
        let fromBuffer = try bytes.withUnsafeBytes { buffer throws(JSONParseError) in try JSONParser.parse(buffer) }
        #expect(fromString == fromArray)
        #expect(fromArray == fromBuffer)
        #expect(fromString["name"] == "Zoë")
    }

    @Test func emptyBufferWithoutBaseAddress() {
        let buffer = UnsafeRawBufferPointer(start: nil, count: 0)
        #expect(throws: failure(.empty, at: 0)) { try JSONParser.parse(buffer) }
    }

    @Test func parsesWithinASliceOfABiggerBuffer() throws {
        // The parser must stop at the buffer's end, not at the end of the memory around it.
        let bytes = Array("[1,2]]]]".utf8)
        let value = try bytes.withUnsafeBytes { buffer throws(JSONParseError) in
            try JSONParser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<5]))
        }
        #expect(value == [1, 2])
        let truncated = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) in try JSONParser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<4])) }
        }
        #expect(throws: failure(.unexpectedEnd, at: 4)) { try truncated.get() }
    }

    @Test func largeArrayOfObjects() throws {
        var text = "["
        for index in 0..<2_000 {
            if index > 0 { text += "," }
            text += #"{"id":\#(index),"name":"item \#(index)","tags":["a","b"],"ok":true}"#
        }
        text += "]"
        let items = try #require(try JSONParser.parse(text).arrayValue)
        #expect(items.count == 2_000)
        #expect(items[1_999]["id"] == 1_999)
        #expect(items[42]["name"] == "item 42")
        #expect(items[7].objectValue?.keys == ["id", "name", "tags", "ok"])
    }
}
