#!/usr/bin/env bash
# Install the pinned Claude Code and GitHub Copilot CLI that tests/e2e drives, from the npm
# registry, into <repo>/.e2e (git-ignored). Re-running with the versions already present is a no-op.
# Another version: HOOKMUX_E2E_CLAUDE_VERSION=X HOOKMUX_E2E_COPILOT_VERSION=Y bash tests/e2e/install-clis.sh
# (then run pytest with the same two variables set).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
pins="$(grep -E '^HOOKMUX_E2E_[A-Z_]+=' "$here/pinned-versions")"
claude_version="${HOOKMUX_E2E_CLAUDE_VERSION:-$(sed -n 's/^HOOKMUX_E2E_CLAUDE_VERSION=//p' <<<"$pins")}"
copilot_version="${HOOKMUX_E2E_COPILOT_VERSION:-$(sed -n 's/^HOOKMUX_E2E_COPILOT_VERSION=//p' <<<"$pins")}"
prefix="${HOOKMUX_E2E_PREFIX:-$repo/.e2e}"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64 ;;
  Linux-aarch64 | Linux-arm64) platform=linux-arm64 ;;
  Darwin-x86_64) platform=darwin-x64 ;;
  Darwin-arm64) platform=darwin-arm64 ;;
  *) echo "install-clis.sh: unsupported platform $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
claude="$prefix/node_modules/@anthropic-ai/claude-code-$platform/claude"
copilot="$prefix/node_modules/@github/copilot-$platform/copilot"

installed() {
  [ -x "$claude" ] && [ -x "$copilot" ] || return 1
  "$claude" --version 2>/dev/null | grep -qF "$claude_version (Claude Code)" || return 1
  "$copilot" --version 2>/dev/null | grep -qF "Copilot CLI $copilot_version." || return 1
}

if ! installed; then
  command -v npm >/dev/null || { echo "install-clis.sh: npm not found (needs Node.js + npm)" >&2; exit 1; }
  mkdir -p "$prefix"
  [ -f "$prefix/package.json" ] || printf '{"private": true}\n' >"$prefix/package.json"
  # The platform binaries come in as optional dependencies; no postinstall script is needed,
  # so this works with npm versions that skip install scripts.
  npm install --prefix "$prefix" --no-audit --no-fund --save-exact --loglevel=error \
    "@anthropic-ai/claude-code@$claude_version" "@github/copilot@$copilot_version"
  installed || { echo "install-clis.sh: expected $claude and $copilot at $claude_version / $copilot_version" >&2; exit 1; }
fi
echo "claude:  $claude ($("$claude" --version))"
echo "copilot: $copilot ($("$copilot" --version | head -n 1))"
