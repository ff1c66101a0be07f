import DepotJSON
import FuzzDriver

/// Parses the input as one JSON text. Whatever the bytes, the parser returns a value or throws; a value it
/// returns, written again, reads back as the same value.
func fuzzJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let input = bytes(start, count)
    guard let value = try? JSONParser.parse(input) else { return 0 }
    let written = value.jsonBytes
    guard let again = try? JSONParser.parse(written) else {
        fatalError("the parser refused what the writer wrote: \(String(decoding: written.prefix(200), as: UTF8.self))")
    }
    precondition(again == value, "written and read again, the value changed")
    precondition(again.jsonBytes == written, "writing is not stable")
    return 0
}

@main
enum FuzzJSONMain {
    static func main() {
        runFuzzer(fuzzJSON)
    }
}
