import DepotJSON
import Foundation
import Testing

/// nst/JSONTestSuite (test_parsing/, MIT; see JSONTestSuite/LICENSE), a conformance suite nobody here wrote:
/// every `y_` case must parse, every `n_` case must be rejected, and no `i_` case (where RFC 8259 lets a parser
/// choose) may crash or hang.
@Suite("JSONTestSuite: RFC 8259 conformance of the parser")
struct JSONTestSuiteTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        guard let directory = Bundle.module.url(forResource: "JSONTestSuite", withExtension: nil)?.appendingPathComponent("test_parsing"),
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        else { return [] }
        return names.filter { $0.hasSuffix(".json") }.sorted().compactMap { name in
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else { return nil }
            return Case(name: name, bytes: Array(data))
        }
    }()

    static func cases(_ prefix: String) -> [Case] { cases.filter { $0.name.hasPrefix(prefix) } }

    @Test("the suite is all here: 95 y_, 188 n_ and 35 i_ cases")
    func suiteIsComplete() {
        #expect(Self.cases("y_").count == 95)
        #expect(Self.cases("n_").count == 188)
        #expect(Self.cases("i_").count == 35)
    }

    @Test("every y_ case parses", arguments: cases("y_"))
    func accepts(testCase: Case) {
        #expect(throws: Never.self) { try JSONParser.parse(testCase.bytes) }
    }

    @Test("every n_ case is rejected", arguments: cases("n_"))
    func rejects(testCase: Case) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(testCase.bytes) }
    }

    @Test("every i_ case is accepted or rejected, as chosen (see `implementationDefined`)", arguments: cases("i_"))
    func implementationDefined(testCase: Case) {
        let accepted = (try? JSONParser.parse(testCase.bytes)) != nil
        #expect(accepted == Self.acceptedImplementationDefined.contains(testCase.name), "\(testCase.name) was \(accepted ? "accepted" : "rejected")")
    }

    /// The i_ cases DepotJSON accepts; it rejects the rest (strings that are not valid UTF-8, lone surrogates in
    /// escapes, UTF-16 text, a nesting deeper than 512). Numbers of any size are kept as their literal, never
    /// rounded, so huge ones and huge exponents parse; 500 nested arrays are within the limit of 512; a UTF-8 byte
    /// order mark is skipped.
    static let acceptedImplementationDefined: Set<String> = [
        "i_number_double_huge_neg_exp.json", "i_number_huge_exp.json", "i_number_neg_int_huge_exp.json",
        "i_number_pos_double_huge_exp.json", "i_number_real_neg_overflow.json", "i_number_real_pos_overflow.json",
        "i_number_real_underflow.json", "i_number_too_big_neg_int.json", "i_number_too_big_pos_int.json",
        "i_number_very_big_negative_int.json", "i_structure_500_nested_arrays.json", "i_structure_UTF-8_BOM_empty_object.json",
    ]
}
