/** The fenced code blocks of a markdown document in the given language, in order. */
export function codeBlocks(markdown: string, language: string): string[] {
  const fence = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "gm");
  return [...markdown.matchAll(fence)].map(match => match[1] ?? "");
}
