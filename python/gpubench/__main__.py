from ._run import main; raise SystemExit(main())
