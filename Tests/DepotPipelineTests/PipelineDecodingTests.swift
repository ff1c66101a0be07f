import DepotJSON
import DepotOperators
import DepotPipeline
import DepotWire
import Testing

@Suite("Pipeline decoding")
struct PipelineDecodingTests {
    @Test("every operator decodes, and encodes back in canonical form")
    func roundTrip() throws {
        let text = """
            [{"op":"statuses","in":["failure","success"]},\
            {"op":"filter","where":{"all":[{"field":"/type","eq":"fire"},{"not":{"field":"/hp","lt":10}},{"any":[{"field":"/tags","contains":"x"},{"field":"/name","prefix":"P"},{"field":"/n","in":[1,"a"]},{"field":"/o","exists":false}]}]}},\
            {"op":"select","fields":["/name","/stats/hp","/a~1b"]},\
            {"op":"sort","by":"/name","order":"desc"},{"op":"limit","count":10},{"op":"removeDuplicates"},\
            {"op":"throttle","seconds":1},{"op":"debounce","seconds":0.25},{"op":"delay","seconds":1.5}]
            """
        let decoded = try pipeline(text)
        #expect(decoded.operators.map(\.name) == PipelineOperator.names)
        // Statuses come out in their declared order, the sort's order is explicit.
        #expect(decoded.key == text.replacing(#"["failure","success"]"#, with: #"["success","failure"]"#))
        #expect(try Pipeline(decoding: decoded.json) == decoded)
    }

    @Test("sort's order defaults to asc; equal pipelines have equal keys")
    func defaults() throws {
        #expect(try pipeline(#"[{"op":"sort","by":"/n"}]"#).key == #"[{"op":"sort","by":"/n","order":"asc"}]"#)
        #expect(try pipeline(#"[{"by":"/n","op":"sort"}]"#).key == pipeline(#"[{"op":"sort","by":"/n","order":"asc"}]"#).key)
        #expect(try pipeline("[]").isEmpty)
    }

    @Test(
        "an invalid pipeline names the operator, where inside it, and what is expected",
        arguments: [
            (#"{"op":"filter"}"#, nil, "", "a pipeline is an array of operators, not an object"),
            (#"[1]"#, 0, "/0", "an operator is an object"),
            (#"[{"where":{}}]"#, 0, "/0", "the operator has no \"op\""),
            (#"[{"op":"map"}]"#, 0, "/0/op", "unknown operator \"map\"; it is one of statuses, filter"),
            (#"[{"op":"limit","count":1},{"op":"limit"}]"#, 1, "/1", "limit needs \"count\""),
            (#"[{"op":"limit","count":-1}]"#, 0, "/0/count", "count is a whole number, 0 or more, not -1"),
            (#"[{"op":"limit","count":1.5}]"#, 0, "/0/count", "count is a whole number"),
            (#"[{"op":"limit","count":2,"max":3}]"#, 0, "/0/max", "limit has no member \"max\"; it takes \"count\""),
            (#"[{"op":"removeDuplicates","by":"/x"}]"#, 0, "/0/by", "it takes no other member"),
            (#"[{"op":"statuses","in":[]}]"#, 0, "/0/in", "in is a non-empty array of statuses"),
            (#"[{"op":"statuses","in":["success","ok"]}]"#, 0, "/0/in/1", "\"ok\" is not a status"),
            (#"[{"op":"select","fields":["name"]}]"#, 0, "/0/fields/0", "\"name\" is not a JSON Pointer; write \"/name\""),
            (#"[{"op":"select","fields":[""]}]"#, 0, "/0/fields/0", "\"\" is the whole item"),
            (#"[{"op":"select","fields":"/name"}]"#, 0, "/0/fields", "fields is a non-empty array"),
            (#"[{"op":"sort","by":"/n","order":"up"}]"#, 0, "/0/order", "order is \"asc\" or \"desc\", not \"up\""),
            (#"[{"op":"sort","by":"/a~2"}]"#, 0, "/0/by", "is not a JSON Pointer"),
            (#"[{"op":"throttle","seconds":0}]"#, 0, "/0/seconds", "seconds is a number from 0.001 to 86400, not 0"),
            (#"[{"op":"delay","seconds":"1s"}]"#, 0, "/0/seconds", "not \"1s\""),
            (#"[{"op":"filter","where":[]}]"#, 0, "/0/where", "a predicate is an object"),
            (#"[{"op":"filter","where":{"field":"/a"}}]"#, 0, "/0/where", "with one TEST"),
            (#"[{"op":"filter","where":{"field":"/a","eq":1,"ne":2}}]"#, 0, "/0/where", "with one TEST"),
            (#"[{"op":"filter","where":{"field":"/a","like":1}}]"#, 0, "/0/where/like", "\"like\" is not a test"),
            (#"[{"op":"filter","where":{"field":"a","eq":1}}]"#, 0, "/0/where/field", "\"a\" is not a JSON Pointer"),
            (#"[{"op":"filter","where":{"field":"/a","lt":true}}]"#, 0, "/0/where/lt", "lt compares numbers or strings, not a boolean"),
            (#"[{"op":"filter","where":{"field":"/a","in":1}}]"#, 0, "/0/where/in", "in takes an array of values"),
            (#"[{"op":"filter","where":{"field":"/a","prefix":1}}]"#, 0, "/0/where/prefix", "prefix takes a string"),
            (#"[{"op":"filter","where":{"field":"/a","exists":"yes"}}]"#, 0, "/0/where/exists", "exists takes true or false"),
            (#"[{"op":"filter","where":{"all":{}}}]"#, 0, "/0/where/all", "all takes an array of predicates"),
            (#"[{"op":"filter","where":{"all":[{"any":[{"x":1}]}]}}]"#, 0, "/0/where/all/0/any/0/x", "\"x\" is not a predicate"),
            (#"[{"op":"filter","where":{"all":[],"any":[]}}]"#, 0, "/0/where", "a predicate is"),
        ] as [(String, Int?, String, String)])
    func refusals(text: String, index: Int?, pointer: String, reason: String) {
        #expect {
            try pipeline(text)
        } throws: { error in
            guard let error = error as? PipelineError else { return false }
            #expect(error.index == index, "\(text)")
            #expect(error.pointer.description == pointer, "\(text)")
            #expect(error.reason.contains(reason), "\(error.reason)")
            return true
        }
    }

    @Test("a pipeline is bounded in operators and in how deep predicates nest")
    func bounds() {
        let long = "[" + Array(repeating: #"{"op":"removeDuplicates"}"#, count: Pipeline.maxOperators + 1).joined(separator: ",") + "]"
        #expect(throws: PipelineError.self) { try pipeline(long) }
        let ok = "[" + Array(repeating: #"{"op":"removeDuplicates"}"#, count: Pipeline.maxOperators).joined(separator: ",") + "]"
        #expect(throws: Never.self) { try pipeline(ok) }
        let deep =
            String(repeating: #"{"not":"#, count: Pipeline.maxPredicateDepth + 1) + #"{"field":"/a","exists":true}"#
            + String(repeating: "}", count: Pipeline.maxPredicateDepth + 1)
        #expect {
            try pipeline(#"[{"op":"filter","where":\#(deep)}]"#)
        } throws: { error in
            (error as? PipelineError)?.reason.contains("nest at most") == true
        }
    }
}
