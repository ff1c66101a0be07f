import DepotTestSupport
import Foundation
import Testing

/// depotd@.service and depotd@.socket are depotd.service and depotd.socket with the instance put in: a hardening
/// or setting changed in one and not the other would make the repositories of one machine differ silently.
@Suite("systemd/: the template units are the units with the instance put in")
struct TemplateUnitsTests {
    /// A unit's settings (its lines less comments), after `substitutions`.
    static func body(_ path: String, _ substitutions: [(String, String)] = []) throws -> [String] {
        var text = try RepositoryFiles.text(path)
        for (old, new) in substitutions { text = text.replacingOccurrences(of: old, with: new) }
        return Array(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.hasPrefix("#") })
    }

    @Test("depotd@.service is depotd.service with its config, state directory, socket and description per instance")
    func service() throws {
        let expected = try Self.body(
            "systemd/depotd.service",
            [
                ("Description=Depot daemon: one", "Description=Depot daemon of the repository %i: one"),
                ("depotd.socket", "depotd@%i.socket"),
                ("ExecStart=/usr/local/bin/depotd\n", "ExecStart=/usr/local/bin/depotd --config ${CONFIGURATION_DIRECTORY}/%i.json\n"),
                ("StateDirectory=depot\n", "StateDirectory=depot-%i\n"),
            ])
        #expect(try Self.body("systemd/depotd@.service") == expected)
    }

    @Test("depotd@.socket is depotd.socket with its path, service and description per instance")
    func socket() throws {
        let expected = try Self.body(
            "systemd/depotd.socket",
            [
                ("Description=Depot daemon socket (", "Description=Depot daemon socket of the repository %i ("),
                ("/run/depot/depotd.sock", "/run/depot/%i.sock"),
                ("Service=depotd.service", "Service=depotd@%i.service"),
            ])
        #expect(try Self.body("systemd/depotd@.socket") == expected)
    }
}
