"""Process pools whose workers can be killed and replaced; knows nothing about documents."""
