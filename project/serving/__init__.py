"""How a request for each kind of data is read, for `python -m project.serve`: a runkit `Reader` per DataModule,
named by the DataModule (`request_reader`)."""
