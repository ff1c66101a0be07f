import DepotSources
import Testing

@Suite("PostgresAddress: a libpq-style URI, checked when the settings are read")
struct PostgresAddressTests {
    static func parse(_ text: String) throws(SettingProblem) -> PostgresAddress {
        try PostgresAddress(parsing: text)
    }

    static func problem(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("a full URI: user, host, port, database, table and sslmode")
    func full() throws {
        let address = try Self.parse("postgres://depot@db.example:6543/fleet?table=inventory.items&sslmode=verify-full")
        #expect(address.endpoint == .tcp(host: "db.example", port: 6543))
        #expect(address.user == "depot")
        #expect(address.database == "fleet")
        #expect(address.schema == "inventory")
        #expect(address.table == "items")
        #expect(address.quotedTable == #""inventory"."items""#)
        #expect(address.tlsMode == .verifyFull)
        #expect(address.description == "postgres://depot@db.example:6543/fleet?table=inventory.items&sslmode=verify-full")
    }

    @Test("what is left out takes libpq's defaults: port 5432, the socket directory, table items, sslmode prefer")
    func defaults() throws {
        let host = try Self.parse("postgresql://db")
        #expect(host.endpoint == .tcp(host: "db", port: 5432))
        #expect(host.user == nil && host.database == nil && host.schema == nil)
        #expect(host.table == "items" && host.tlsMode == .prefer)
        #expect(host.description == "postgres://db:5432/?table=items")
        let socket = try Self.parse("postgres:///depot")
        #expect(socket.endpoint == .unixSocket(directory: "/run/postgresql", port: 5432))
        #expect(socket.endpoint.socketPath == "/run/postgresql/.s.PGSQL.5432")
        #expect(socket.database == "depot")
        #expect(try Self.parse("POSTGRES://db").endpoint == .tcp(host: "db", port: 5432))
    }

    @Test("a socket directory: percent-encoded as the host, or host= in the query, with its port")
    func socketDirectory() throws {
        let encoded = try Self.parse("postgres://depot@%2Ftmp%2Fpg:5433/depot")
        #expect(encoded.endpoint == .unixSocket(directory: "/tmp/pg", port: 5433))
        #expect(encoded.endpoint.socketPath == "/tmp/pg/.s.PGSQL.5433")
        let query = try Self.parse("postgres://depot@/depot?host=/tmp/pg/&port=5433")
        #expect(query.endpoint == .unixSocket(directory: "/tmp/pg/", port: 5433))
        #expect(query.endpoint.socketPath == "/tmp/pg/.s.PGSQL.5433")
        #expect(query.description == "postgres://depot@:5433/depot?host=/tmp/pg/&table=items")
    }

    @Test("IPv6 hosts in brackets; user and database percent-decoded, and encoded again in the description")
    func ipv6AndEncoding() throws {
        let address = try Self.parse("postgres://d%C3%A9p%20t@[fd00::2]:5432/my%2Fdb")
        #expect(address.endpoint == .tcp(host: "fd00::2", port: 5432))
        #expect(address.user == "dép t")
        #expect(address.database == "my/db")
        #expect(address.description == "postgres://d%C3%A9p%20t@[fd00::2]:5432/my%2Fdb?table=items")
        #expect(try Self.parse(address.description) == address)
    }

    @Test("a password is refused wherever it is put, and the message does not repeat it")
    func passwordRefused() {
        for text in ["postgres://depot:s3cret@db/fleet", "postgres://depot@db/fleet?password=s3cret", "postgres://db?passfile=/x"] {
            let problem = Self.problem(text)
            #expect(problem?.contains("password file or a systemd credential") == true, "\(text): \(problem ?? "accepted")")
            #expect(problem?.contains("s3cret") == false)
        }
    }

    @Test(
        "each malformed URI is refused with what to write instead",
        arguments: [
            ("http://db/fleet", "is not a postgres:// URI"),
            ("postgres://a,b/fleet", "lists several hosts"),
            ("postgres://db:0/fleet", "a port is a number from 1 to 65535"),
            ("postgres://db:54x/fleet", "a port is a number from 1 to 65535"),
            ("postgres://[fd00::1/fleet", "without its closing"),
            ("postgres://@db/fleet", "empty user name"),
            ("postgres://db/fleet?table=1items", "plain SQL identifier"),
            ("postgres://db/fleet?table=a.b.c", "write NAME or SCHEMA.NAME"),
            ("postgres://db/fleet?table=it%22ems", "plain SQL identifier"),
            ("postgres://db/fleet?table=" + String(repeating: "t", count: 64), "at most 63 bytes"),
            ("postgres://db/fleet?sslmode=maybe", "one of disable, allow, prefer, require, verify-ca, verify-full"),
            ("postgres://db/fleet?table", "without a value"),
            ("postgres://db/fleet?table=a&table=b", "twice"),
            ("postgres://db/fleet?application_name=x", "does not take"),
            ("postgres://db/fleet?host=db2", "names a socket directory"),
            ("postgres://db/fleet?host=/tmp", "keep one"),
            ("postgres:///fleet?sslmode=require", "over a Unix socket"),
            ("postgres://db/fl%2", "two hex digits"),
            ("postgres://db/fl%FF", "not UTF-8"),
            ("postgres://db/fleet#x", "fragment"),
            ("postgres://db/fleet?feed=notify", "it is listen (LISTEN/NOTIFY on a session of its own) or poll"),
            ("postgres://db/fleet?poll_interval=0.01", "from 0.05 to 86400"),
            ("postgres://db/fleet?poll_interval=0.0005", "up to three decimals"),
            ("postgres://db/fleet?poll_interval=1e3", "a number of seconds"),
            ("postgres://db/fleet?poll_interval=-1", "a number of seconds"),
            ("postgres://db/fleet?poll_interval=.5", "a number of seconds"),
            ("postgres://db/fleet?poll_interval=86401", "to 86400"),
            ("postgres://db/fleet?max_lag=-1", "from 0 to 86400"),
            ("postgres://db/fleet?max_lag=86400.5", "from 0 to 86400"),
            ("postgres://db/fleet?max_lag=1s", "a number of seconds"),
        ])
    func malformed(text: String, expected: String) {
        let problem = Self.problem(text)
        #expect(problem?.contains(expected) == true, "\(text): \(problem ?? "accepted")")
    }

    @Test(
        "the feed and a poll interval to the millisecond, written back as given",
        arguments: [
            ("feed=poll&poll_interval=0.5", PostgresAddress.Feed.poll, Duration.milliseconds(500), "&feed=poll&poll_interval=0.5"),
            ("poll_interval=0.05", .listen, .milliseconds(50), "&poll_interval=0.05"),
            ("poll_interval=2.250", .listen, .milliseconds(2250), "&poll_interval=2.25"),
            ("feed=listen&poll_interval=10", .listen, .seconds(10), ""),
            ("poll_interval=86400", .listen, .seconds(86_400), "&poll_interval=86400"),
        ])
    func feed(query: String, feed: PostgresAddress.Feed, interval: Duration, described: String) throws {
        let address = try Self.parse("postgres://db/fleet?" + query)
        #expect(address.feed == feed)
        #expect(address.pollInterval == interval)
        #expect(address.description == "postgres://db:5432/fleet?table=items" + described)
        #expect(try Self.parse(address.description) == address)
    }

    @Test(
        "a replica's max_lag, to the millisecond and down to 0, written back as given; left out, nil",
        arguments: [
            ("max_lag=0", Duration?.some(.zero), "&max_lag=0"),
            ("max_lag=0.25", .milliseconds(250), "&max_lag=0.25"),
            ("max_lag=30", .seconds(30), "&max_lag=30"),
            ("feed=poll", nil, "&feed=poll"),
        ])
    func maxLag(query: String, lag: Duration?, described: String) throws {
        let address = try Self.parse("postgres://db/fleet?" + query)
        #expect(address.maxLag == lag)
        #expect(address.description == "postgres://db:5432/fleet?table=items" + described)
        #expect(try Self.parse(address.description) == address)
    }

    @Test("isPostgres tells a postgres:// or postgresql:// URI from any other")
    func recognised() {
        #expect(PostgresAddress.isPostgres("postgres://db"))
        #expect(PostgresAddress.isPostgres("PostgreSQL://db"))
        #expect(!PostgresAddress.isPostgres("postgres:db"))
        #expect(!PostgresAddress.isPostgres("https://db"))
    }
}
