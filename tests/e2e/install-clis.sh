#!/usr/bin/env bash
# Install the pinned Claude Code, GitHub Copilot CLI, OpenAI Codex CLI, Gemini CLI, Qwen Code,
# Cline, opencode and Pi that tests/e2e drives, from the npm registry, into <repo>/.e2e (git-ignored). Qwen Code
# needs Node >= 22: a pinned Node (the registry's platform package node-<os>-<arch>) goes into
# <repo>/.e2e/node22 with it, and only it runs with that bin folder first on PATH (Cline 3.0.65
# names no engine: its launcher finds a compiled Bun binary, @cline/cli-<os>-<arch>, any Node runs it). A CLI already
# present at its pinned version is left alone; with all present this is a no-op. Pi needs Node >= 22.19 to
# run (tests/e2e runs it with .e2e/node22's node); it installs with any npm.
# Another version: HOOKMUX_E2E_CLAUDE_VERSION=X HOOKMUX_E2E_COPILOT_VERSION=Y HOOKMUX_E2E_CODEX_VERSION=Z
# HOOKMUX_E2E_GEMINI_VERSION=W HOOKMUX_E2E_NODE_VERSION=N HOOKMUX_E2E_QWEN_VERSION=Q HOOKMUX_E2E_CLINE_VERSION=C
# HOOKMUX_E2E_OPENCODE_VERSION=V HOOKMUX_E2E_PI_VERSION=U
# bash tests/e2e/install-clis.sh (then run pytest with the same variables set).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
pins="$(grep -E '^HOOKMUX_E2E_[A-Z_]+=' "$here/pinned-versions")"
pin() { local key="HOOKMUX_E2E_$1_VERSION"; echo "${!key:-$(sed -n "s/^$key=//p" <<<"$pins")}"; }
claude_version="$(pin CLAUDE)"
copilot_version="$(pin COPILOT)"
codex_version="$(pin CODEX)"
gemini_version="$(pin GEMINI)"
node_version="$(pin NODE)"
qwen_version="$(pin QWEN)"
cline_version="$(pin CLINE)"
opencode_version="$(pin OPENCODE)"
pi_version="$(pin PI)"
prefix="${HOOKMUX_E2E_PREFIX:-$repo/.e2e}"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64 triple=x86_64-unknown-linux-musl ;;
  Linux-aarch64 | Linux-arm64) platform=linux-arm64 triple=aarch64-unknown-linux-musl ;;
  Darwin-x86_64) platform=darwin-x64 triple=x86_64-apple-darwin ;;
  Darwin-arm64) platform=darwin-arm64 triple=aarch64-apple-darwin ;;
  *) echo "install-clis.sh: unsupported platform $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
claude="$prefix/node_modules/@anthropic-ai/claude-code-$platform/claude"
copilot="$prefix/node_modules/@github/copilot-$platform/copilot"
codex="$prefix/node_modules/@openai/codex-$platform/vendor/$triple/bin/codex"
# Gemini CLI is a Node program (one bundled script, Node >= 20), run by the node on PATH.
gemini="$prefix/node_modules/@google/gemini-cli/bundle/gemini.js"
cline="$prefix/node_modules/@cline/cli-$platform/bin/cline"
# opencode: a Bun binary in its platform package (an optional dependency of opencode-ai).
opencode="$prefix/node_modules/opencode-$platform/bin/opencode"
# Pi: a bundled Node program; its version is read from its package.json (the check needs no Node 22).
pi_dir="$prefix/node_modules/@earendil-works/pi-coding-agent"
pi="$pi_dir/dist/bundle/cli.js"
# The Node >= 22 CLI and its Node, in a prefix of their own (the others' node_modules stay Node 20's).
node22="$prefix/node22"
node22_bin="$node22/node_modules/node-$platform/bin"
qwen="$node22/node_modules/@qwen-code/qwen-code/cli-entry.js"

# has BINARY EXPECTED_TEXT: the binary exists and its --version output contains the text.
has() { [ -x "$1" ] && "$1" --version 2>/dev/null | grep -qF "$2"; }
claude_ok() { has "$claude" "$claude_version (Claude Code)"; }
copilot_ok() { has "$copilot" "Copilot CLI $copilot_version."; }
codex_ok() { has "$codex" "codex-cli $codex_version"; }
gemini_ok() { [ -f "$gemini" ] && node "$gemini" --version 2>/dev/null | grep -qxF "$gemini_version"; }
node22_ok() { [ -x "$node22_bin/node" ] && [ "$("$node22_bin/node" --version 2>/dev/null)" = "v$node_version" ]; }
with_node22() { PATH="$node22_bin:$PATH" "$@"; }
qwen_ok() { [ -f "$qwen" ] && with_node22 node "$qwen" --version 2>/dev/null | grep -qxF "$qwen_version"; }
cline_ok() { [ -x "$cline" ] && "$cline" --version 2>/dev/null | grep -qxF "$cline_version"; }
opencode_ok() { [ -x "$opencode" ] && "$opencode" --version 2>/dev/null | grep -qxF "$opencode_version"; }
pi_ok() { [ -f "$pi" ] && grep -qF "\"version\": \"$pi_version\"" "$pi_dir/package.json"; }

wanted=()
claude_ok || wanted+=("@anthropic-ai/claude-code@$claude_version")
copilot_ok || wanted+=("@github/copilot@$copilot_version")
codex_ok || wanted+=("@openai/codex@$codex_version")
gemini_ok || wanted+=("@google/gemini-cli@$gemini_version")
cline_ok || wanted+=("cline@$cline_version")
opencode_ok || wanted+=("opencode-ai@$opencode_version")
pi_ok || wanted+=("@earendil-works/pi-coding-agent@$pi_version")

if [ "${#wanted[@]}" -gt 0 ]; then
  command -v npm >/dev/null || { echo "install-clis.sh: npm not found (needs Node.js + npm)" >&2; exit 1; }
  mkdir -p "$prefix"
  [ -f "$prefix/package.json" ] || printf '{"private": true}\n' >"$prefix/package.json"
  # The platform binaries come in as optional dependencies; no postinstall script is needed,
  # so this works with npm versions that skip install scripts.
  npm install --prefix "$prefix" --no-audit --no-fund --save-exact --loglevel=error "${wanted[@]}"
  claude_ok || { echo "install-clis.sh: expected Claude Code $claude_version at $claude" >&2; exit 1; }
  copilot_ok || { echo "install-clis.sh: expected Copilot CLI $copilot_version at $copilot" >&2; exit 1; }
  codex_ok || { echo "install-clis.sh: expected Codex CLI $codex_version at $codex" >&2; exit 1; }
  gemini_ok || { echo "install-clis.sh: expected Gemini CLI $gemini_version at $gemini" >&2; exit 1; }
  cline_ok || { echo "install-clis.sh: expected Cline $cline_version at $cline" >&2; exit 1; }
  opencode_ok || { echo "install-clis.sh: expected opencode $opencode_version at $opencode" >&2; exit 1; }
  pi_ok || { echo "install-clis.sh: expected Pi $pi_version at $pi" >&2; exit 1; }
fi

if ! node22_ok; then
  command -v npm >/dev/null || { echo "install-clis.sh: npm not found (needs Node.js + npm)" >&2; exit 1; }
  mkdir -p "$node22"
  [ -f "$node22/package.json" ] || printf '{"private": true}\n' >"$node22/package.json"
  npm install --prefix "$node22" --no-audit --no-fund --save-exact --loglevel=error "node-$platform@$node_version"
  node22_ok || { echo "install-clis.sh: expected Node v$node_version at $node22_bin/node" >&2; exit 1; }
fi
if ! qwen_ok; then
  # npm itself runs under the Node 22 too, so engine checks and install scripts see it.
  with_node22 npm install --prefix "$node22" --no-audit --no-fund --save-exact --loglevel=error \
    "@qwen-code/qwen-code@$qwen_version"
  qwen_ok || { echo "install-clis.sh: expected Qwen Code $qwen_version at $qwen" >&2; exit 1; }
fi
echo "claude:  $claude ($("$claude" --version))"
echo "copilot: $copilot ($("$copilot" --version | head -n 1))"
echo "codex:   $codex ($("$codex" --version))"
echo "gemini:  $gemini ($(node "$gemini" --version))"
echo "node22:  $node22_bin/node ($("$node22_bin/node" --version))"
echo "qwen:    $qwen ($(with_node22 node "$qwen" --version))"
echo "cline:   $cline ($("$cline" --version | head -n 1))"
echo "opencode: $opencode ($("$opencode" --version))"
echo "pi:      $pi ($pi_version, run by $node22_bin/node)"
