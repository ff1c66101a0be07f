import DepotHTTPSource
import DepotPlatform
import DepotSources

/// The HTTP source's settings: flags, then the config file, then the defaults. Headers come from the config file
/// only, and secrets from files it names, never from a flag: command lines are visible to every user.
extension SettingLookup {
    /// Resolved whatever the source (to the defaults when nothing is set), and used only by an HTTP one.
    func http(credentialsDirectory: String?) throws(ConfigurationError) -> HTTPSourceOptions {
        var http = HTTPSourceOptions()
        if let path = flag(options.itemsPath, "--items-path") ?? file(file.itemsPath, "itemsPath") {
            do {
                http.itemsPath = try ItemsPath(parsing: path.value)
            } catch {
                throw ConfigurationError("\(path.origin.quoting(path.value)) \(error)")
            }
        }
        http.deleteURL = try template(flag(options.deleteURL, "--delete-url") ?? file(file.deleteURL, "deleteURL"))
        http.putURL = try template(flag(options.putURL, "--put-url") ?? file(file.putURL, "putURL"))
        http.patchURL = try template(flag(options.patchURL, "--patch-url") ?? file(file.patchURL, "patchURL"))
        try applyLimits(to: &http)
        if let configPath {
            try applyHeaders(to: &http, configPath: configPath, credentialsDirectory: credentialsDirectory)
        }
        return http
    }

    /// An item URL template, checked; nil when none is given.
    private func template(_ given: Sourced<String>?) throws(ConfigurationError) -> ItemURLTemplate? {
        guard let given else { return nil }
        do {
            return try ItemURLTemplate(parsing: given.value)
        } catch {
            throw ConfigurationError("\(given.origin.quoting(HTTPAddress.redacted(given.value))) \(error)")
        }
    }

    /// Timeouts, the response size limit and the redirect limit.
    private func applyLimits(to http: inout HTTPSourceOptions) throws(ConfigurationError) {
        if let seconds = flag(options.connectTimeout, "--connect-timeout") ?? file(file.connectTimeout, "connectTimeout") {
            http.connectTimeout = try TimeoutSetting.connect.checked(seconds)
        }
        if let seconds = flag(options.requestTimeout, "--request-timeout") ?? file(file.requestTimeout, "requestTimeout") {
            http.requestTimeout = try TimeoutSetting.request.checked(seconds)
        }
        if let bytes = flag(options.maxResponseBytes, "--max-response-bytes") ?? file(file.maxResponseBytes, "maxResponseBytes") {
            http.maxResponseBytes = try IntegerSetting.maxResponseBytes.checked(bytes)
        }
        if let count = flag(options.maxRedirects, "--max-redirects") ?? file(file.maxRedirects, "maxRedirects") {
            http.maxRedirects = try IntegerSetting.maxRedirects.checked(count)
        }
    }

    /// `headers`, `headerFiles` and `headerCredentials`; a header may be given by only one of them.
    private func applyHeaders(to http: inout HTTPSourceOptions, configPath: String, credentialsDirectory: String?) throws(ConfigurationError) {
        let configDirectory = Directories.parent(of: configPath)
        var seen: [String: String] = [:]
        func claim(_ name: String, _ key: String) throws(ConfigurationError) {
            if let earlier = seen.updateValue(key, forKey: name.lowercased()) {
                throw ConfigurationError("config file \(configPath): the header \(name) is given twice (in \"\(earlier)\" and \"\(key)\"); keep one")
            }
        }
        for header in file.headers {
            try claim(header.name, "headers")
            do {
                http.headers.append(try HeaderField(name: header.name, value: header.value))
            } catch {
                // The problem never quotes the value.
                throw ConfigurationError("config file \(configPath): \"headers\": \(header.name) \(error)")
            }
        }
        for header in file.headerFiles {
            try claim(header.name, "headerFiles")
            guard !header.value.isEmpty else {
                throw ConfigurationError(
                    "config file \(configPath): \"headerFiles\": \(header.name) names no file; give the path of the file that holds its value")
            }
            let path = Self.absolute(header.value, in: configDirectory)
            http.secretHeaders.append(try Self.secretHeader(header.name, path: path, origin: .file, key: "headerFiles", configPath: configPath))
        }
        for header in file.headerCredentials {
            try claim(header.name, "headerCredentials")
            let path = try Self.credentialPath(header, configPath: configPath, credentialsDirectory: credentialsDirectory)
            http.secretHeaders.append(
                try Self.secretHeader(header.name, path: path, origin: .credential(header.value), key: "headerCredentials", configPath: configPath))
        }
    }

    /// The file systemd made for the credential a `headerCredentials` entry names.
    private static func credentialPath(
        _ header: ConfigurationFile.NamedString, configPath: String, credentialsDirectory: String?
    ) throws(ConfigurationError) -> String {
        let credential = header.value
        guard !credential.isEmpty, !credential.contains("/"), credential != ".", credential != ".." else {
            throw ConfigurationError(
                "config file \(configPath): \"headerCredentials\": \(header.name) names the credential \"\(credential)\"; a credential's name is a file name, as in LoadCredential=depot-token:/etc/depot/token"
            )
        }
        guard let credentialsDirectory else {
            throw ConfigurationError(
                "config file \(configPath): \"headerCredentials\" needs $CREDENTIALS_DIRECTORY, which systemd sets for a service "
                    + "with LoadCredential=\(credential):/path/to/file; outside systemd, use \"headerFiles\" instead"
            )
        }
        return absolute(credential, in: credentialsDirectory)
    }

    private static func secretHeader(
        _ name: String, path: String, origin: SecretHeader.Origin, key: String, configPath: String
    ) throws(ConfigurationError) -> SecretHeader {
        do {
            return try SecretHeader(name: name, path: path, origin: origin)
        } catch {
            throw ConfigurationError("config file \(configPath): \"\(key)\": \(error)")
        }
    }
}
