import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

/**
 * An OAuthClientProvider as a host would write one, in memory. Its redirectToAuthorization() plays the user who
 * approves in the browser: it follows the authorization URL and keeps the code from the redirect.
 */
export class TestOAuthClientProvider implements OAuthClientProvider {
  clientInfo: OAuthClientInformationMixed | undefined;
  stored: OAuthTokens | undefined;
  verifier = "";
  code: string | undefined;
  redirects = 0;
  readonly redirectUrl = "http://127.0.0.1:9/callback";

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "agent-lattice tests",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.clientInfo;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.clientInfo = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "tokens") this.stored = undefined;
    if (scope === "all" || scope === "client") this.clientInfo = undefined;
  }
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.redirects += 1;
    const response = await fetch(authorizationUrl, { redirect: "manual" });
    await response.body?.cancel();
    const location = response.headers.get("location");
    this.code = location ? (new URL(location).searchParams.get("code") ?? undefined) : undefined;
  }
}
