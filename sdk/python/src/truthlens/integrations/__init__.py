"""Framework integrations, each behind its extra: `truthlens-sdk[langchain]`,
`truthlens-sdk[llama-index]`, `truthlens-sdk[litellm]`."""
