// Prompt templates are imported as text and embedded by the bundler.
declare module "*.md" {
  const text: string;
  export default text;
}
