import DepotPlatform
import DepotServer
import DepotTestSupport
import Testing

@testable import DepotDaemon

/// The connection limits are read by one loop over a table: each row must name a real flag and config key and set
/// its own limit, so the table is held to both.
@Suite("LimitSetting: each connection limit comes from its flag or its config key, checked against its range")
struct LimitSettingTests {
    @Test("a limit's flag, then its key, set it; out of range is refused naming the flag", arguments: LimitSetting.all.map(\.key))
    func each(_ key: String) throws {
        let row = try #require(LimitSetting.all.first { $0.key == key })
        let (low, high) = (row.setting.range.lowerBound, row.setting.range.upperBound)
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write("depot.json", "{\"\(key)\": \(high)}")

        #expect(try resolve([]).connectionLimits[keyPath: row.limit] == row.setting.defaultValue)
        #expect(try resolve(["--config", config]).connectionLimits[keyPath: row.limit] == high)
        #expect(try resolve(["--config", config, row.flagName, String(low)]).connectionLimits[keyPath: row.limit] == low, "the flag wins")
        let refusal = configurationError([row.flagName, String(high + 1)])
        #expect(
            refusal?.description.hasPrefix("\(row.flagName) \(high + 1) must be an integer between \(low) and \(high)") == true,
            "\(String(describing: refusal))")
        #expect(ConfigurationFile.keys.contains(key))
    }

    @Test("each limit once; a flag is its key in kebab case")
    func table() {
        #expect(Set(LimitSetting.all.map(\.key)).count == LimitSetting.all.count)
        #expect(Set(LimitSetting.all.map(\.limit)).count == LimitSetting.all.count)
        #expect(LimitSetting.all.first { $0.key == "maxConnectionsPerUser" }?.flagName == "--max-connections-per-user")
    }
}
