import DepotJSON
import DepotOperators
import DepotPipeline
import DepotWire
import Testing

@Suite("Predicate")
struct PredicateTests {
    static let item = json(
        #"{"id":1,"name":"Pikachu","type":"electric","hp":35,"weight":6.0,"tags":["cute","yellow",7],"stats":{"speed":90},"caf\u00e9":"é","nothing":null,"flag":false}"#
    )

    /// Decodes the predicate in `text` (through a filter operator) and tests the item.
    func matches(_ text: String, _ item: JSONValue = item) throws -> Bool {
        let decoded = try pipeline(#"[{"op":"filter","where":\#(text)}]"#)
        guard case .filter(let predicate) = decoded.operators.first else {
            Issue.record("not a filter")
            return false
        }
        return predicate.matches(item)
    }

    @Test(
        "eq and ne follow JSON types: numbers by value, a number never equals a string",
        arguments: [
            (#"{"field":"/hp","eq":35}"#, true),
            (#"{"field":"/hp","eq":3.5e1}"#, true),
            (#"{"field":"/hp","eq":35.000}"#, true),
            (#"{"field":"/hp","eq":"35"}"#, false),
            (#"{"field":"/weight","eq":6}"#, true),
            (#"{"field":"/weight","eq":6e0}"#, true),
            (#"{"field":"/name","eq":"Pikachu"}"#, true),
            (#"{"field":"/name","eq":"pikachu"}"#, false),
            (#"{"field":"/hp","ne":36}"#, true),
            (#"{"field":"/hp","ne":"35"}"#, true),
            (#"{"field":"/nothing","eq":null}"#, true),
            (#"{"field":"/flag","eq":false}"#, true),
            (#"{"field":"/flag","eq":0}"#, false),
            (#"{"field":"/stats","eq":{"speed":9e1}}"#, true),
            (#"{"field":"/tags","eq":["cute","yellow",7.0]}"#, true),
            (#"{"field":"/caf\u00e9","eq":"\u00e9"}"#, true),
        ])
    func equality(predicate: String, expected: Bool) throws {
        #expect(try matches(predicate) == expected, "\(predicate)")
    }

    @Test(
        "lt le gt ge compare two numbers or two strings, and nothing else",
        arguments: [
            (#"{"field":"/hp","lt":36}"#, true),
            (#"{"field":"/hp","lt":35}"#, false),
            (#"{"field":"/hp","le":35}"#, true),
            (#"{"field":"/hp","gt":3.4e1}"#, true),
            (#"{"field":"/hp","ge":1e2}"#, false),
            (#"{"field":"/hp","gt":"1"}"#, false),
            (#"{"field":"/name","lt":"Raichu"}"#, true),
            (#"{"field":"/name","gt":"Pichu"}"#, true),
            (#"{"field":"/name","ge":"Pikachu"}"#, true),
            (#"{"field":"/name","lt":"pikachu"}"#, true),
            (#"{"field":"/name","gt":5}"#, false),
            (#"{"field":"/flag","lt":1}"#, false),
            (#"{"field":"/hp","lt":123456789012345678901234567890}"#, true),
        ])
    func order(predicate: String, expected: Bool) throws {
        #expect(try matches(predicate) == expected, "\(predicate)")
    }

    @Test(
        "in, contains, prefix, exists",
        arguments: [
            (#"{"field":"/type","in":["fire","electric"]}"#, true),
            (#"{"field":"/hp","in":[1,3.5e1]}"#, true),
            (#"{"field":"/hp","in":["35"]}"#, false),
            (#"{"field":"/hp","in":[]}"#, false),
            (#"{"field":"/name","contains":"kach"}"#, true),
            (#"{"field":"/name","contains":"KACH"}"#, false),
            (#"{"field":"/name","contains":""}"#, true),
            (#"{"field":"/tags","contains":"cute"}"#, true),
            (#"{"field":"/tags","contains":7e0}"#, true),
            (#"{"field":"/tags","contains":"cu"}"#, false),
            (#"{"field":"/hp","contains":3}"#, false),
            (#"{"field":"/name","prefix":"Pika"}"#, true),
            (#"{"field":"/name","prefix":"chu"}"#, false),
            (#"{"field":"/hp","prefix":"3"}"#, false),
            (#"{"field":"/stats/speed","exists":true}"#, true),
            (#"{"field":"/nothing","exists":true}"#, true),
            (#"{"field":"/stats/hp","exists":false}"#, true),
            (#"{"field":"/tags/1","eq":"yellow"}"#, true),
            (#"{"field":"/tags/01","exists":true}"#, false),
        ])
    func tests(predicate: String, expected: Bool) throws {
        #expect(try matches(predicate) == expected, "\(predicate)")
    }

    @Test(
        "a missing field matches nothing but exists:false, so ne and not differ",
        arguments: [
            (#"{"field":"/missing","eq":1}"#, false),
            (#"{"field":"/missing","ne":1}"#, false),
            (#"{"field":"/missing","lt":1}"#, false),
            (#"{"field":"/missing","in":[null]}"#, false),
            (#"{"field":"/missing","contains":"a"}"#, false),
            (#"{"field":"/missing","prefix":""}"#, false),
            (#"{"field":"/missing","exists":false}"#, true),
            (#"{"not":{"field":"/missing","eq":1}}"#, true),
            (#"{"field":"/name/first","eq":"P"}"#, false),
        ])
    func missing(predicate: String, expected: Bool) throws {
        #expect(try matches(predicate) == expected, "\(predicate)")
    }

    @Test(
        "all, any and not combine; all of none is true, any of none is false",
        arguments: [
            (#"{"all":[{"field":"/type","eq":"electric"},{"field":"/hp","gt":30}]}"#, true),
            (#"{"all":[{"field":"/type","eq":"electric"},{"field":"/hp","gt":40}]}"#, false),
            (#"{"any":[{"field":"/type","eq":"fire"},{"field":"/hp","gt":30}]}"#, true),
            (#"{"any":[{"field":"/type","eq":"fire"},{"field":"/hp","gt":40}]}"#, false),
            (#"{"not":{"any":[{"field":"/type","eq":"fire"}]}}"#, true),
            (#"{"all":[]}"#, true),
            (#"{"any":[]}"#, false),
        ])
    func combinators(predicate: String, expected: Bool) throws {
        #expect(try matches(predicate) == expected, "\(predicate)")
    }

    @Test("strings compare by code points, without Unicode normalisation")
    func unicode() throws {
        // "é" precomposed (U+00E9) and decomposed (e + U+0301) are different strings here.
        let item = json(#"{"id":1,"name":"e\u0301","emoji":"😀"}"#)
        #expect(try !matches(#"{"field":"/name","eq":"\u00e9"}"#, item))
        #expect(try matches(#"{"field":"/name","eq":"e\u0301"}"#, item))
        #expect(try matches(#"{"field":"/emoji","gt":"\uffff"}"#, item), "U+1F600 is above U+FFFF")
        #expect(try matches(#"{"field":"/name","prefix":"e"}"#, item))
    }
}
