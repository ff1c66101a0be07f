import DepotPlatform
package import DepotSchema
import DepotWire
package import Testing

/// Holds every message depotd sends in a test to rpc-schema/openrpc.json, as built into the binaries: each
/// connection gets a `ProtocolChecker` (a tap) from `checker()`, and the ledger collects what they find.
/// `expectConformance()` turns the findings into test failures; the test harnesses call it when they clean up,
/// so no test can receive a message the document does not describe and still pass.
package final class ProtocolLedger: Sendable {
    /// The document the checks use: the one embedded in depotd, so the binaries and the checks cannot disagree.
    package static let document: OpenRPCDocument = {
        do {
            return try OpenRPCDocument(json: ProtocolDocument.value)
        } catch {
            preconditionFailure("rpc-schema/openrpc.json cannot be used for checks: \(error)")
        }
    }()

    private struct Record {
        var checked = 0
        var violations: [String] = []
    }

    private let record = Locked(Record())

    package init() {}

    /// A tap for one connection (a checker keeps the connection's request ids to know what each answer answers).
    package func checker() -> ProtocolChecker {
        ProtocolChecker(ledger: self)
    }

    /// How many messages from depotd were checked.
    package var checkedCount: Int { record.withLock(\.checked) }

    /// One description per message that breaks the document (with the message and what is wrong).
    package var violations: [String] { record.withLock(\.violations) }

    /// Records one test issue for each message that broke the document.
    package func expectConformance(sourceLocation: SourceLocation = #_sourceLocation) {
        for violation in violations {
            Issue.record(Comment(rawValue: violation), sourceLocation: sourceLocation)
        }
    }

    func noteChecked(_ problems: [String]) {
        record.withLock { record in
            record.checked += 1
            record.violations += problems
        }
    }
}
