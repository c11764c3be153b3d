#!/bin/sh
# Installs fermix, a personal AI agent in one self-contained binary (daemon and CLI), on Linux or macOS.
#
#   curl -fsSL https://get.fermix.dev/install.sh | sh
#   curl -fsSL https://get.fermix.dev/install.sh | sh -s -- --version 0.2.0
#   sh install.sh [--prefix DIR] [--version V] [--yes] [--no-completions]
#
# It reads releases.json, picks this machine's build, checks its sha256 and its signature, and renames it
# into DIR/bin (default ~/.local/bin) in one step: an existing fermix is either replaced whole or left as it
# was, and nothing is left behind on failure. Running it again is safe. Then it writes shell completions for
# the shells this machine has (bash, zsh, fish) into your home, where each shell looks for them.
#
# Environment: FERMIX_RELEASES_URL  another releases.json (a mirror, a test server).
#
# POSIX sh only (dash, busybox ash, bash, zsh's sh). `shellcheck -s sh install.sh` must stay clean.
set -eu

default_releases_url='https://get.fermix.dev/releases.json'

# The release signing key, pinned here so the signature is checked against a key that did not come from the
# download server. `bun build.ts --release` writes the key in place of the marker line when it publishes
# this script; the copy in the source tree pins none.
release_public_key() {
  cat <<'PEM'
# @FERMIX_RELEASE_PUBLIC_KEY@
PEM
}

usage() {
  cat <<'EOF'
Usage: sh install.sh [--prefix DIR] [--version V] [--yes] [--no-completions]

  --prefix DIR      install into DIR/bin (default: ~/.local, so ~/.local/bin/fermix)
  --version V       install release V (default: the latest)
  -y, --yes         never prompt; print the next step instead of offering to run it
  --no-completions  do not write shell completions (bash, zsh, fish) into your home
  -h, --help        show this help

FERMIX_RELEASES_URL points the installer at another releases.json.
EOF
}

say() { printf '%s\n' "$*"; }

# die REASON [WHAT-TO-DO-NEXT]: one error line, one "next" line, exit 1. The EXIT trap removes temp files.
die() {
  printf 'fermix install: error: %s\n' "$1" >&2
  if [ $# -gt 1 ]; then printf 'fermix install: next: %s\n' "$2" >&2; fi
  exit 1
}

has() { command -v "$1" >/dev/null 2>&1; }

# --- options ---------------------------------------------------------------------------------------------
prefix=
version=
assume_yes=
completions=1
while [ $# -gt 0 ]; do
  case $1 in
    --prefix)
      if [ $# -lt 2 ] || [ -z "$2" ]; then die "--prefix needs a directory" "e.g. sh install.sh --prefix /usr/local"; fi
      prefix=$2
      shift 2
      ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --version)
      if [ $# -lt 2 ] || [ -z "$2" ]; then die "--version needs a version" "e.g. sh install.sh --version 0.2.0"; fi
      version=$2
      shift 2
      ;;
    --version=*) version=${1#--version=}; shift ;;
    -y | --yes) assume_yes=1; shift ;;
    --no-completions) completions=; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option: $1" "run sh install.sh --help" ;;
  esac
done

if [ -z "$prefix" ]; then
  [ -n "${HOME:-}" ] || die "HOME is not set, so there is no default install directory" "pass --prefix DIR"
  prefix=$HOME/.local
fi
version=${version#v}
if [ -n "$version" ] && ! printf '%s\n' "$version" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$'; then
  die "--version $version is not a version" "give one like 0.2.0"
fi
releases_url=${FERMIX_RELEASES_URL:-$default_releases_url}

# --- this machine ----------------------------------------------------------------------------------------
os=$(uname -s)
arch=$(uname -m)
case $os in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW* | MSYS* | CYGWIN* | Windows_NT)
    die "Windows is not supported: fermix needs unix sockets and a systemd or launchd service" \
      "install it inside WSL 2 (run this installer in your WSL shell)"
    ;;
  *) die "fermix has no build for $os" "fermix runs on Linux and macOS" ;;
esac
case $arch in
  x86_64 | amd64) arch=x86_64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "fermix has no build for the $arch processor" "fermix runs on x86_64 and arm64" ;;
esac
# A shell under Rosetta reports x86_64 on Apple silicon; the native build is the one to install.
if [ "$os" = darwin ] && [ "$arch" = x86_64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
  arch=arm64
fi
target=$os-$arch
# musl systems (Alpine) have their own builds: a glibc binary does not start there.
if [ "$os" = linux ]; then
  for loader in /lib/ld-musl-*; do
    if [ -e "$loader" ]; then target=$target-musl; fi
    break
  done
fi
name=fermix_$(printf '%s' "$target" | tr '-' '_')

# --- tools -----------------------------------------------------------------------------------------------
if has curl; then
  downloader=curl
elif has wget; then
  downloader=wget
else
  die "neither curl nor wget is installed" "install curl (apt-get install curl, apk add curl, …) and run this again"
fi
# openssl first: it uses the CPU's SHA instructions, several times faster than coreutils on a 100 MB binary.
if has openssl; then
  sha_tool=openssl
elif has sha256sum; then
  sha_tool=sha256sum
elif has shasum; then
  sha_tool=shasum
else
  die "no sha256 tool found (sha256sum, shasum or openssl)" "install coreutils or openssl and run this again"
fi

sha256_of() {
  case $sha_tool in
    sha256sum) sha256sum "$1" | awk '{ print $1 }' ;;
    shasum) shasum -a 256 "$1" | awk '{ print $1 }' ;;
    openssl) openssl dgst -sha256 -r "$1" | awk '{ print $1 }' ;;
  esac
}

# fetch URL FILE [progress]: a release is served from its own origin, so redirects are not followed.
fetch() {
  if [ "$downloader" = curl ]; then
    if [ "${3:-}" = progress ] && [ -t 2 ]; then show=--progress-bar; else show=-sS; fi
    code=$(curl -f "$show" -o "$2" -w '%{http_code}' "$1") || return 1
    if [ "$code" != 200 ]; then
      printf 'fermix install: %s answered HTTP %s\n' "$1" "$code" >&2
      return 1
    fi
  elif wget --version 2>/dev/null | grep -q 'GNU Wget'; then
    if [ "${3:-}" = progress ] && [ -t 2 ]; then show=--show-progress; else show=--no-verbose; fi
    wget -q "$show" --tries=1 --max-redirect=0 -O "$2" "$1"
  else
    wget -q -O "$2" "$1"
  fi
}

# scheme://host[:port] of a URL; artifacts must share the manifest's, exactly.
origin_of() {
  printf '%s\n' "$1" | sed -n 's|^\(https\{0,1\}://[^/?#]*\).*|\1|p'
}

# --- where it goes ---------------------------------------------------------------------------------------
mkdir -p "$prefix/bin" 2>/dev/null || die "cannot create $prefix/bin" "choose another --prefix, or create it first"
bindir=$(cd "$prefix/bin" && pwd)
dest=$bindir/fermix
[ -w "$bindir" ] || die "$bindir is not writable by $(id -un 2>/dev/null || echo you)" \
  "choose another --prefix (the default is ~/.local), or run as a user who may write there"
if [ -e "$dest" ] && [ ! -f "$dest" ]; then die "$dest exists and is not a file" "move it aside and run this again"; fi
# A package manager's fermix is its to replace (as `fermix upgrade` also refuses).
if [ -L "$dest" ]; then
  case $(ls -l "$dest") in
    *"/Cellar/"* | *"/homebrew/"*)
      die "$dest is Homebrew's fermix" "run: brew upgrade fermix (or pass another --prefix to install a separate copy)"
      ;;
  esac
fi

# Temp files live next to the destination, so the final mv is a rename(2) within one file system.
tmp=
cleanup() {
  if [ -n "$tmp" ]; then rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
if has mktemp; then
  tmp=$(mktemp -d "$bindir/.fermix-install.XXXXXX") || die "cannot create a temporary directory in $bindir" "check the free space and permissions there"
else
  tmp=$bindir/.fermix-install.$$
  mkdir -m 700 "$tmp" || { tmp=; die "cannot create a temporary directory in $bindir" "check the free space and permissions there"; }
fi

# --- the release -----------------------------------------------------------------------------------------
origin=$(origin_of "$releases_url")
[ -n "$origin" ] || die "FERMIX_RELEASES_URL=$releases_url is not an http(s) URL" "unset it to use $default_releases_url"
case $origin in
  https://*) ;;
  http://127.0.0.1 | http://127.0.0.1:* | http://localhost | http://localhost:* | http://\[::1\] | http://\[::1\]:*) ;;
  *) die "refusing $releases_url: releases are fetched over https" "use an https:// URL for FERMIX_RELEASES_URL" ;;
esac

manifest=$tmp/releases.json
fetch "$releases_url" "$manifest" ||
  die "could not download the release list $releases_url" "check your network connection and run this again"
latest=$(sed -n 's/^[[:space:]]*"latest":[[:space:]]*"\([^"]*\)".*/\1/p' "$manifest" | head -n 1)
[ -n "$latest" ] || die "$releases_url is not a fermix releases.json" "check FERMIX_RELEASES_URL, or unset it"
version=${version:-$latest}

# releases.json keeps each release on one line (build.ts writes it so): the line, then the target's fields.
release=$(awk -v v="$version" 'index($0, "{\"version\":\"" v "\"") { print; exit }' "$manifest")
if [ -z "$release" ]; then
  known=$(sed -n 's/^[[:space:]]*{"version":"\([^"]*\)".*/\1/p' "$manifest" | tr '\n' ' ')
  die "there is no release $version (published: ${known:-none})" "run again without --version for the latest ($latest)"
fi
artifact=$(printf '%s\n' "$release" | awk -v t="$target" '{
  n = split($0, parts, /[{]"target":"/)
  for (i = 2; i <= n; i++) if (index(parts[i], t "\"") == 1) { print parts[i]; exit }
}')
if [ -z "$artifact" ]; then
  targets=$(printf '%s\n' "$release" | awk '{
    n = split($0, parts, /[{]"target":"/)
    for (i = 2; i <= n; i++) { sub(/".*/, "", parts[i]); printf "%s ", parts[i] }
  }')
  die "release $version has no build for $target (it has: ${targets:-none})" \
    "fermix $version does not support this machine; see $origin for other releases"
fi
field() {
  printf '%s\n' "$artifact" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"
}
url=$(field url)
sha256=$(field sha256)
sig_url=$(field sig_url)
printf '%s\n' "$sha256" | grep -Eq '^[0-9a-f]{64}$' || die "releases.json lists no valid sha256 for $target $version" \
  "report this to the fermix maintainers; nothing was changed"
for u in "$url" "$sig_url"; do
  case $u in
    "$origin"/*) ;;
    *)
      die "refusing $u: it is outside the release origin $origin" \
        "the release list is wrong or tampered with; nothing was changed. Report it, or use another FERMIX_RELEASES_URL"
      ;;
  esac
done

previous=
if [ -f "$dest" ]; then previous=$("$dest" --version 2>/dev/null || true); fi
already=
if [ "$previous" = "$version" ] && [ "$(sha256_of "$dest")" = "$sha256" ]; then
  say "fermix $version ($target) is already installed at $dest: it matches the release's sha256, nothing to do."
  already=1
fi

if [ -z "$already" ]; then
  say "Downloading fermix $version for $target"
  say "  from $url"
  fetch "$url" "$tmp/$name" progress ||
    die "could not download $url" "check your network connection and run this again; nothing was changed"
  fetch "$sig_url" "$tmp/$name.sigstore.json" ||
    die "could not download the signature $sig_url" "run this again later; nothing was changed"

  actual=$(sha256_of "$tmp/$name")
  if [ "$actual" != "$sha256" ]; then
    die "the download's sha256 is $actual, but the release lists $sha256: the file is damaged or incomplete" \
      "run this again; if it fails the same way, report it. Nothing was changed"
  fi
  say "sha256 ok: $actual"

  # The statement the release signature covers, byte for byte (src/release/statement.ts).
  statement=$tmp/statement.json
  printf '{"_type":"fermix-release/v1","name":"%s","version":"%s","target":"%s","sha256":"%s"}\n' \
    "$name" "$version" "$target" "$sha256" >"$statement"
  bundle=$tmp/$name.sigstore.json
  key=$tmp/release.pub.pem
  release_public_key >"$key"
  if grep -q 'BEGIN PUBLIC KEY' "$key"; then pinned=1; else pinned=; fi
  refused="the signature does not verify: this is not the release it claims to be (wrong file, version or target)"
  retry="nothing was changed. Run this again; if it fails the same way, report it and do not use this download"

  if [ -n "$pinned" ] && has cosign; then
    # Key-signed, no transparency log: the pinned key is the whole of the trust, as in `fermix upgrade`.
    cosign verify-blob --key "$key" --bundle "$bundle" --new-bundle-format --insecure-ignore-tlog=true \
      "$statement" >"$tmp/verify.log" 2>&1 || {
      cat "$tmp/verify.log" >&2
      die "$refused" "$retry (cosign older than 2.4 cannot read this bundle format: update it if its message says so)"
    }
    say "signature ok: verified with cosign against the release key pinned in this installer"
  elif [ -n "$pinned" ] && has openssl; then
    sig=$(sed -n 's/.*"signature":[[:space:]]*"\([A-Za-z0-9+/=]*\)".*/\1/p' "$bundle" | head -n 1)
    [ -n "$sig" ] || die "the signature file $sig_url has no signature in it" "$retry"
    printf '%s\n' "$sig" | openssl base64 -d -A >"$tmp/signature.der" || die "the signature in $sig_url is not base64" "$retry"
    openssl dgst -sha256 -verify "$key" -signature "$tmp/signature.der" "$statement" >"$tmp/verify.log" 2>&1 ||
      die "$refused" "$retry"
    say "signature ok: verified with openssl against the release key pinned in this installer (cosign not found)"
  else
    chmod 0755 "$tmp/$name"
    "$tmp/$name" verify-release --bundle "$bundle" --version "$version" --target "$target" --name "$name" \
      "$tmp/$name" >"$tmp/verify.log" 2>&1 || { cat "$tmp/verify.log" >&2; die "$refused" "$retry"; }
    if [ -n "$pinned" ]; then why="neither cosign nor openssl is installed"; else why="this copy of install.sh pins no release key"; fi
    say "signature ok: checked by the downloaded binary itself (fermix verify-release), because $why."
    say "  That catches a wrong or damaged download, not a forged release: install cosign or openssl for an independent check."
  fi

  chmod 0755 "$tmp/$name"
  printed=$("$tmp/$name" --version 2>/dev/null) || printed=
  if [ "$printed" != "$version" ]; then
    die "the downloaded fermix does not run on this machine (--version printed '$printed')" \
      "check that $bindir is not on a noexec mount; nothing was changed"
  fi
  mv -f "$tmp/$name" "$dest" || die "could not move fermix into $dest" "check the permissions of $bindir"
  say "Installed fermix $version to $dest"
  if [ -n "$previous" ] && [ "$previous" != "$version" ]; then
    say "  (was $previous; a running fermix service keeps the old version until: fermix restart)"
  fi
fi

# --- shell completions ------------------------------------------------------------------------------------
# `fermix completion SHELL` for each shell this machine has, written where that shell looks without root.
# Best effort: fermix is installed either way, so a completion that cannot be written is only a note.

# write_completion SHELL FILE: the new script replaces the old one whole, or nothing changes.
write_completion() {
  mkdir -p "${2%/*}" 2>/dev/null || return 1
  if "$dest" completion "$1" >"$2.new.$$" 2>/dev/null && mv -f "$2.new.$$" "$2"; then return 0; fi
  rm -f "$2.new.$$" 2>/dev/null
  return 1
}

if [ -n "$completions" ] && [ -n "${HOME:-}" ]; then
  data_home=${XDG_DATA_HOME:-$HOME/.local/share}
  if has bash; then
    file=$data_home/bash-completion/completions/fermix
    if write_completion bash "$file"; then
      say "Completions for bash: $file"
      say "  (the bash-completion package loads it; without that package, add to ~/.bashrc: . \"$file\")"
    else
      say "note: bash completions were not written to $file (fermix is installed all the same)"
    fi
  fi
  if has zsh; then
    file=$data_home/zsh/site-functions/_fermix
    if write_completion zsh "$file"; then
      say "Completions for zsh: $file"
      say "  (zsh loads it once ~/.zshrc has, before compinit: fpath=(\"${file%/*}\" \$fpath))"
    else
      say "note: zsh completions were not written to $file (fermix is installed all the same)"
    fi
  fi
  if has fish; then
    file=${XDG_CONFIG_HOME:-$HOME/.config}/fish/completions/fermix.fish
    if write_completion fish "$file"; then
      say "Completions for fish: $file"
    else
      say "note: fish completions were not written to $file (fermix is installed all the same)"
    fi
  fi
fi

# --- after ------------------------------------------------------------------------------------------------
run=fermix
case ":${PATH:-}:" in
  *":$bindir:"*) ;;
  *)
    run=$dest
    case ${SHELL:-} in
      */zsh) rc=.zshrc ;;
      */bash) rc=.bashrc ;;
      */fish) rc= ;;
      *) rc=.profile ;;
    esac
    say ""
    if [ -n "$rc" ]; then
      say "$bindir is not on your PATH. To add it, append this line to ~/$rc and open a new shell:"
      say "  export PATH=\"$bindir:\$PATH\""
    else
      say "$bindir is not on your PATH. To add it, run: fish_add_path $bindir"
    fi
    ;;
esac

if [ -z "$assume_yes" ] && [ -t 1 ] && (: </dev/tty) 2>/dev/null; then
  printf 'Run "%s setup" now to configure a provider and the service? [Y/n] ' "$run" >/dev/tty
  answer=
  read -r answer </dev/tty || answer=n
  case $answer in
    "" | [Yy]*)
      cleanup
      tmp=
      "$dest" setup </dev/tty
      exit $?
      ;;
  esac
fi
say "Next: $run setup"
