import DepotJSON
import Foundation
import Testing

/// Public conformance vectors nobody here wrote (PatchSuites/): json-patch/json-patch-tests for RFC 6902 (Apache-2.0,
/// see its package.json) and the examples of RFC 7396's Appendix A for merge patches.
@Suite("JSON Patch and JSON Merge Patch: the public conformance vectors")
struct PatchConformanceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let file: String
        let number: Int
        let comment: String
        let document: JSONValue
        let patch: JSONValue
        /// The result, when the case has one.
        let expected: JSONValue?
        /// Why the patch must fail, when it must.
        let error: String?
        let disabled: Bool

        var testDescription: String { "\(file) #\(number): \(comment)" }
    }

    static func load(_ file: String) -> [Case] {
        guard let url = Bundle.module.url(forResource: "PatchSuites", withExtension: nil)?.appendingPathComponent(file),
            let data = FileManager.default.contents(atPath: url.path),
            case .array(let entries)? = try? JSONParser.parse(Array(data))
        else { return [] }
        return entries.enumerated().compactMap { number, entry in
            guard case .object(let object) = entry, let document = object["doc"], let patch = object["patch"] else { return nil }
            return Case(
                file: file, number: number, comment: object["comment"]?.stringValue ?? object["error"]?.stringValue ?? "", document: document,
                patch: patch, expected: object["expected"], error: object["error"]?.stringValue, disabled: object["disabled"]?.boolValue ?? false)
        }
    }

    static let jsonPatchCases = (load("tests.json") + load("spec_tests.json")).filter { !$0.disabled }
    static let mergePatchCases = load("rfc7396-examples.json")

    @Test("the suites are all here: 108 RFC 6902 cases (3 the suite disables left out), 15 RFC 7396 examples")
    func suitesAreComplete() {
        #expect(Self.jsonPatchCases.count == 108)
        #expect(Self.mergePatchCases.count == 15)
    }

    @Test("every RFC 6902 case gives its result, or fails as it must, whole", arguments: jsonPatchCases)
    func jsonPatch(testCase: Case) {
        let outcome = Result { () throws(JSONPatchError) in try JSONPatch(decoding: testCase.patch).apply(to: testCase.document) }
        switch (outcome, testCase.expected, testCase.error) {
        case (.success(let result), let expected?, nil):
            #expect(result.jsonEquals(expected), "got \(String(decoding: result.jsonBytes, as: UTF8.self))")
        case (.failure, nil, _?):
            break
        case (.success(let result), nil, let error?):
            Issue.record("applied, but must fail (\(error)): \(String(decoding: result.jsonBytes, as: UTF8.self))")
        case (.failure(let failure), _, _):
            Issue.record("failed, but must apply: \(failure)")
        default:
            Issue.record("the case has neither a result nor an error")
        }
    }

    @Test("every RFC 7396 example gives its result", arguments: mergePatchCases)
    func mergePatch(testCase: Case) throws {
        let expected = try #require(testCase.expected)
        let result = JSONMergePatch.apply(testCase.patch, to: testCase.document)
        #expect(result.jsonEquals(expected), "got \(String(decoding: result.jsonBytes, as: UTF8.self))")
    }
}
