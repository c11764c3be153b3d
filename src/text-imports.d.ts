// Prompt templates are imported as text and embedded by the bundler.
declare module "*.md" {
  const text: string;
  export default text;
}

// The bash completion script, printed by `fermix completion bash`.
declare module "*.bash" {
  const text: string;
  export default text;
}
