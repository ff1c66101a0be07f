#if canImport(Glibc)
import Glibc
#endif

/// A multi-host network made of Linux network namespaces, for fleet tests: one namespace for the database and one
/// per daemon host, each host joined to the database's by a veth pair on a /24 of its own (host `i` is
/// `10.X.i.2`, the database's side `10.X.i.1`). Nothing is routed anywhere else: traffic stays between the test's
/// own namespaces. Partitioning a host takes its link down on the database's side; healing brings it back.
///
/// Names carry a random tag, so fleets of tests running at once never meet. Needs root (`ip netns`).
package final class NetworkFleet: Sendable {
    package let hostCount: Int
    /// The tag in every name: `depot-TAG-db`, `depot-TAG-h1`, veths `dTAGd1`/`dTAGh1`.
    package let tag: String
    /// The second octet of every address: 10.`octet`.i.1 and .2.
    package let octet: Int

    /// Why fleets cannot be made here; nil when they can.
    package static var unavailableReason: String? {
        if getuid() != 0 { return "network namespaces need root" }
        if TestFiles.mode("/usr/sbin/ip") == nil { return "no /usr/sbin/ip (iproute2)" }
        return nil
    }

    /// Makes the namespaces and links, all up.
    package static func create(hosts: Int) async throws -> NetworkFleet {
        precondition((1...200).contains(hosts))
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt32
        let fleet = NetworkFleet(hosts: hosts, tag: String(value % 0xFFFF, radix: 16), octet: 100 + Int(value >> 16) % 150)
        do {
            try await fleet.build()
        } catch {
            await fleet.remove()
            throw error
        }
        return fleet
    }

    private init(hosts: Int, tag: String, octet: Int) {
        self.hostCount = hosts
        self.tag = tag
        self.octet = octet
    }

    package var databaseNamespace: String { "depot-\(tag)-db" }
    package func namespace(ofHost host: Int) -> String { "depot-\(tag)-h\(host)" }
    /// The database's address as host `host` reaches it.
    package func databaseAddress(forHost host: Int) -> String { "10.\(octet).\(host).1" }
    package func hostAddress(_ host: Int) -> String { "10.\(octet).\(host).2" }
    /// The addresses the database listens on, one per host link.
    package var databaseAddresses: [String] { (1...hostCount).map(databaseAddress(forHost:)) }
    /// Every address of the fleet, as a CIDR (for the database's password rule).
    package var network: String { "10.\(octet).0.0/16" }
    /// The command prefix that runs a program in host `host`'s namespace.
    package func launcher(host: Int) -> [String] { ["/usr/sbin/ip", "netns", "exec", namespace(ofHost: host)] }

    private func databaseLink(_ host: Int) -> String { "d\(tag)d\(host)" }
    private func hostLink(_ host: Int) -> String { "d\(tag)h\(host)" }

    private func build() async throws {
        try await ip(["netns", "add", databaseNamespace])
        try await ip(["-n", databaseNamespace, "link", "set", "lo", "up"])
        for host in 1...hostCount {
            let namespace = namespace(ofHost: host)
            try await ip(["netns", "add", namespace])
            try await ip(["-n", namespace, "link", "set", "lo", "up"])
            try await ip([
                "link", "add", databaseLink(host), "netns", databaseNamespace, "type", "veth", "peer", "name", hostLink(host), "netns", namespace,
            ])
            try await ip(["-n", databaseNamespace, "addr", "add", databaseAddress(forHost: host) + "/24", "dev", databaseLink(host)])
            try await ip(["-n", namespace, "addr", "add", hostAddress(host) + "/24", "dev", hostLink(host)])
            try await ip(["-n", databaseNamespace, "link", "set", databaseLink(host), "up"])
            try await ip(["-n", namespace, "link", "set", hostLink(host), "up"])
        }
    }

    /// Cuts host `host` off: its link goes down on the database's side. Packets are dropped, not refused, as in a
    /// real partition: connections hang until a timeout notices.
    package func partition(host: Int) async throws {
        try await ip(["-n", databaseNamespace, "link", "set", databaseLink(host), "down"])
    }

    /// Brings host `host`'s link back.
    package func heal(host: Int) async throws {
        try await ip(["-n", databaseNamespace, "link", "set", databaseLink(host), "up"])
    }

    /// Deletes every namespace (and with them the links).
    package func remove() async {
        for host in 1...hostCount {
            _ = try? await ip(["netns", "del", namespace(ofHost: host)])
        }
        _ = try? await ip(["netns", "del", databaseNamespace])
    }

    private func ip(_ arguments: [String]) async throws {
        let result = try await CommandResult.run("/usr/sbin/ip", arguments, environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        guard result.status == 0 else {
            throw NetworkFleetError(description: "ip \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.standardError)")
        }
    }
}

package struct NetworkFleetError: Error, CustomStringConvertible {
    package let description: String
}
