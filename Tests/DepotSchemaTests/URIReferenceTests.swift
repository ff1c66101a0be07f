import Testing

@testable import DepotSchema

@Suite("URIReference: RFC 3986 reference resolution")
struct URIReferenceTests {
    static let base = URIReference(parsing: "http://a/b/c/d;p?q")

    /// RFC 3986 §5.4.1 (normal examples) and §5.4.2 (abnormal examples), resolved against http://a/b/c/d;p?q.
    @Test(
        "the RFC's examples",
        arguments: [
            ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"), (";x", "http://a/b/c/;x"),
            ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"), ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"), ("..", "http://a/b/"), ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"),
            ("../../", "http://a/"), ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
            ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"),
            ("g#s/../x", "http://a/b/c/g#s/../x"), ("http:g", "http:g"),
        ])
    func rfcExamples(reference: String, resolved: String) {
        #expect(URIReference(parsing: reference).resolved(against: Self.base).text == resolved)
    }

    @Test("URNs and documents without a URI of their own")
    func otherBases() {
        let urn = URIReference(parsing: "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed")
        #expect(
            URIReference(parsing: "#/definitions/bar").resolved(against: urn).text == "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed#/definitions/bar"
        )
        let none = URIReference(parsing: "")
        #expect(URIReference(parsing: "#/a").resolved(against: none).text == "#/a")
        #expect(URIReference(parsing: "item.json").resolved(against: none).text == "item.json")
    }
}
