import { inject } from "vitest";
// A plain ES module: scripts/ is JavaScript run by node; the policy is shared with `node scripts/package-policy.mjs`.
import { packageDirs } from "../../scripts/package-policy.mjs";
import { type PackageInfo, packageInfo } from "./workspace.js";

/** Every package under packages/ that users install (not private), by npm name. */
export function publishedPackages(): Map<string, PackageInfo> {
  const packages = new Map<string, PackageInfo>();
  for (const dir of packageDirs() as string[]) {
    const info = packageInfo(dir);
    if (!info.private) packages.set(info.name, info);
  }
  return packages;
}

const isInternal = (name: string) => name === "agent-lattice" || name.startsWith("@agent-lattice/");

/**
 * The tarballs to hand npm for installing `names`: theirs plus those of every internal package they depend on
 * or peer on (transitively), since those are not on the registry yet. Nothing else: other dependencies come from the registry.
 */
export function tarballsFor(names: string[]): string[] {
  const tarballs = inject("tarballs");
  const packages = publishedPackages();
  const wanted = new Set<string>();
  const visit = (name: string) => {
    if (wanted.has(name)) return;
    const info = packages.get(name);
    if (!info) throw new Error(`${name} is not a package under packages/`);
    wanted.add(name);
    // Internal peers too (a mailbox adapter's @agent-lattice/team): npm would look them up on the registry.
    for (const dep of [...Object.keys(info.dependencies), ...Object.keys(info.peerDependencies)]) {
      if (isInternal(dep)) visit(dep);
    }
  };
  for (const name of names) visit(name);
  return [...wanted].map(name => {
    const tarball = tarballs[name];
    if (!tarball) throw new Error(`no tarball was packed for ${name}`);
    return tarball;
  });
}
