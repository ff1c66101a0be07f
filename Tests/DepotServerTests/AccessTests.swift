import DepotCore
import DepotJSON
import DepotRPC
import DepotSchema
import DepotTestSupport
import DepotWire
import Logging
import Testing

@testable import DepotServer

@Suite("Access: who may call what, from the peer's credentials, on every call")
struct AccessTests {
    @Test("principals: *, user and group by name or id; anything else says what to write")
    func principals() throws {
        #expect(try AccessPolicy.Principal(parsing: "*") == .anyone)
        #expect(try AccessPolicy.Principal(parsing: "user:root") == .user(0))
        #expect(try AccessPolicy.Principal(parsing: "user:1234") == .user(1234))
        #expect(try AccessPolicy.Principal(parsing: "group:nogroup") == .group(65534))
        #expect(try AccessPolicy.Principal(parsing: "group:27") == .group(27))
        for (text, message) in [
            ("root", "is not a principal; write user:NAME, user:UID, group:NAME, group:GID or *"),
            ("user:", "is not a principal"), ("role:admin", "is not a principal"),
            ("user:no-such-user-here", "there is no user no-such-user-here"), ("group:no-such-group", "there is no group no-such-group"),
        ] {
            #expect {
                try AccessPolicy.Principal(parsing: text)
            } throws: { error in
                "\(error)".contains(message)
            }
        }
    }

    @Test("levels: the daemon's user and root are admin; others as granted, by uid or any of their groups; each level includes those below")
    func levels() {
        let policy = AccessPolicy(read: [.anyone], write: [.group(100)], admin: [.user(2000)])
        #expect(policy.level(uid: 0, groups: [0], daemonUID: 999) == .admin)
        #expect(policy.level(uid: 999, groups: [999], daemonUID: 999) == .admin)
        #expect(policy.level(uid: 2000, groups: [2000], daemonUID: 999) == .admin)
        #expect(policy.level(uid: 1000, groups: [1000, 100], daemonUID: 999) == .write, "a supplementary group counts")
        #expect(policy.level(uid: 1001, groups: [1001], daemonUID: 999) == .read)
        let closed = AccessPolicy(read: [.group(5)], write: [], admin: [])
        #expect(closed.level(uid: 1001, groups: [1001], daemonUID: 999) == nil)
        #expect(AccessPolicy.default.level(uid: 1001, groups: [1001], daemonUID: 999) == .read)
    }

    @Test("every request type's level is the document's x-access")
    func contract() throws {
        let methods = try #require(ProtocolLedger.document.json["methods"]?.arrayValue)
        for request in DepotRequests.all {
            let method = try #require(methods.first { $0["name"]?.stringValue == request.method }, "\(request.method) is in the document")
            #expect(method["x-access"]?.stringValue == request.accessLevel.rawValue, "\(request.method)")
        }
    }

    /// Methods dispatched for a peer of uid 1000 (groups 1000 and 100) under `policy`, with the daemon running as root.
    func bench(_ policy: AccessPolicy) -> (MethodBench, AccessControl) {
        let access = AccessControl(policy, daemonUID: 0)
        return (MethodBench(access: access), access)
    }

    @Test("a refused call answers forbidden naming the method, the level and the uid, and changes nothing")
    func refused() throws {
        let (bench, _) = bench(.default)
        bench.session.peer = PeerCredentials(pid: 1, uid: 1000, gid: 1000, groups: [1000, 100])
        let before = bench.repository.current
        for (method, level) in [("load", "write"), ("remove", "write"), ("wipe", "admin"), ("pipelines.delete", "admin")] {
            let params = method == "remove" ? #","params":{"id":"1"}"# : method == "pipelines.delete" ? #","params":{"name":"x"}"# : ""
            let answer = try #require(bench.answerNow(#"{"jsonrpc":"2.0","id":3,"method":"\#(method)"\#(params)}"#))
            #expect(answer["error"]?["code"] == -32005, "\(method)")
            #expect(
                answer["error"]?["message"]?.stringValue?.hasPrefix("forbidden: \(method) needs \(level) access, and uid 1000 has only read access")
                    == true)
        }
        #expect(bench.repository.current == before, "nothing changed")
        #expect(bench.session.notes.isEmpty, "a refused mutation is not even noted as requested")
        #expect(bench.answerNow(#"{"jsonrpc":"2.0","id":4,"method":"state"}"#)?["result"] != nil)
    }

    @Test("a method granted by itself: put lets a read-only user put, and nothing else that changes items; whoami lists it")
    func grantedMethods() async throws {
        let (bench, access) = bench(AccessPolicy(read: [.anyone], methods: ["put": [.user(1000)], "patch": [.group(100)]]))
        bench.session.peer = PeerCredentials(pid: 1, uid: 1000, gid: 1000, groups: [1000], userName: "bot")
        let whoami = try #require(bench.answerNow(#"{"jsonrpc":"2.0","id":1,"method":"whoami"}"#)?["result"])
        #expect(whoami["levels"] == ["read"])
        #expect(whoami["methods"] == ["put"], "patch is granted to a group the caller is not in")
        _ = try await bench.repository.load().result.get()
        let put = await bench.answerLater(#"{"jsonrpc":"2.0","id":2,"method":"put","params":{"id":"9","item":{"name":"nine"}}}"#)
        #expect(put?["result"]?["etag"]?.stringValue?.count == 32, "\(String(describing: put))")
        for (method, params) in [
            ("patch", #"{"id":"9","patch":{"name":"NINE"}}"#), ("remove", #"{"id":"9"}"#),
            ("apply", #"{"changes":[{"op":"put","id":"8","item":{}}]}"#),
        ] {
            let answer = try #require(bench.answerNow(#"{"jsonrpc":"2.0","id":3,"method":"\#(method)","params":\#(params)}"#))
            #expect(answer["error"]?["code"] == -32005, "\(method)")
        }
        // The grant goes with the next policy: the same call is then refused.
        access.current = AccessPolicy(read: [.anyone])
        let refused = try #require(bench.answerNow(#"{"jsonrpc":"2.0","id":4,"method":"put","params":{"id":"7","item":{}}}"#))
        #expect(refused["error"]?["message"]?.stringValue?.hasPrefix("forbidden: put needs write access, and uid 1000 has only read access") == true)
        #expect(bench.repository.item(id: "7") == nil)
    }

    @Test("granting a group write lets its members load; narrowing the policy applies to the next call; whoami says so")
    func liveChanges() async throws {
        let (bench, access) = bench(AccessPolicy(read: [.anyone], write: [.group(100)]))
        bench.session.peer = PeerCredentials(pid: 1, uid: 1000, gid: 1000, groups: [1000, 100], userName: "alice")
        #expect(await bench.answerLater(#"{"jsonrpc":"2.0","id":1,"method":"load"}"#)?["result"]?["status"] == "success")
        let whoami = try #require(bench.answerNow(#"{"jsonrpc":"2.0","id":2,"method":"whoami"}"#)?["result"])
        #expect(whoami == ["uid": 1000, "gid": 1000, "groups": [1000, 100], "user": "alice", "pid": 1, "levels": ["read", "write"]])

        access.current = AccessPolicy(read: [.group(5)], write: [], admin: [])
        #expect(bench.answerNow(#"{"jsonrpc":"2.0","id":3,"method":"load"}"#)?["error"]?["code"] == -32005)
        let refused = bench.answerNow(#"{"jsonrpc":"2.0","id":4,"method":"state"}"#)?["error"]
        #expect(refused?["message"]?.stringValue?.contains("uid 1000 has no access") == true)
    }
}
